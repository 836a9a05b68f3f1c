package io.orderflow.inventory;

import io.orderflow.consumer.SlowdownSwitch;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

/**
 * {@code PUT /drills/slowdown?perRecordMillis=N} makes inventory-service a slow consumer of {@code orders} (N ms per record
 * before each batch) and {@code DELETE /drills/slowdown} gives it its speed back: the {@code slow-consumer} drill's
 * switch, answered by {@link SlowdownSwitch}. 404 unless {@code orderflow.inventory-service.drills-enabled=true}.
 */
@Path("/drills/slowdown")
public class DrillResource {

    static final String ENABLED_KEY = "orderflow.inventory-service.drills-enabled";

    private final InventoryConsumer consumer;
    private final boolean enabled;

    DrillResource(InventoryConsumer consumer, InventoryConfig config) {
        this.consumer = consumer;
        this.enabled = config.drillsEnabled();
    }

    @PUT
    public Response slowDown(@QueryParam("perRecordMillis") String perRecordMillis) {
        return send(SlowdownSwitch.set(consumer.consumer(), enabled, ENABLED_KEY, perRecordMillis));
    }

    @DELETE
    public Response fullSpeed() {
        return send(SlowdownSwitch.clear(consumer.consumer(), enabled, ENABLED_KEY));
    }

    private static Response send(SlowdownSwitch.Answer answer) {
        return Response.status(answer.status())
                .type(answer.mediaType())
                .entity(answer.body())
                .build();
    }
}
