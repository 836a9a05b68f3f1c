package io.orderflow.lag;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * {@code GET /lag}: the latest {@link LagSnapshot} as JSON; 503 as a problem until the first reading succeeds.
 * {@code GET /lag/history}: every group's lag at each reading of the last {@code history}, for charts.
 */
@Path("/lag")
public class LagResource {

    private final LagPoller poller;

    LagResource(LagPoller poller) {
        this.poller = poller;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response lag() {
        return poller.latest()
                .map(snapshot -> Response.ok(snapshot).build())
                .orElseGet(() -> Response.status(Response.Status.SERVICE_UNAVAILABLE)
                        .type("application/problem+json")
                        .entity(new Problem(
                                "about:blank",
                                "No reading of the cluster yet",
                                503,
                                poller.lastFailure() == null
                                        ? "the first reading has not finished"
                                        : poller.lastFailure()))
                        .build());
    }

    @GET
    @Path("/history")
    @Produces(MediaType.APPLICATION_JSON)
    public List<LagHistory.Point> history() {
        return poller.history();
    }

    /** RFC 9457 problem details. */
    public record Problem(String type, String title, int status, String detail) {}
}
