package io.orderflow.consumer.quarkus;

import io.orderflow.consumer.SlowdownSwitch;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

/**
 * {@code PUT /drills/slowdown?perRecordMillis=N} makes a consuming service a slow consumer of its topic (N ms per
 * record before each batch; the consumer is the service's {@link SlowdownTarget}) and {@code DELETE /drills/slowdown} gives it its speed back: the {@code slow-consumer}
 * drill's switch, answered by {@link SlowdownSwitch}. 404 unless {@code orderflow.consumer.drills-enabled=true}. Both
 * are {@link AdminOperation}s: without the admin token {@link AdminTokenFilter} refuses them first (401, or 403 while
 * {@code orderflow.admin.token} is not set).
 */
@Path("/drills/slowdown")
@AdminOperation
public class DrillResource {

    static final String ENABLED_KEY = "orderflow.consumer.drills-enabled";

    private final SlowdownTarget target;
    private final boolean enabled;

    DrillResource(SlowdownTarget target, ConsumerConfig config) {
        this.target = target;
        this.enabled = config.drillsEnabled();
    }

    @PUT
    public Response slowDown(@QueryParam("perRecordMillis") String perRecordMillis) {
        return send(SlowdownSwitch.set(target.consumer(), enabled, ENABLED_KEY, perRecordMillis));
    }

    @DELETE
    public Response fullSpeed() {
        return send(SlowdownSwitch.clear(target.consumer(), enabled, ENABLED_KEY));
    }

    private static Response send(SlowdownSwitch.Answer answer) {
        return Response.status(answer.status())
                .type(answer.mediaType())
                .entity(answer.body())
                .build();
    }
}
