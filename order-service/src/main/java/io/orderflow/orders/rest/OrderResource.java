package io.orderflow.orders.rest;

import io.orderflow.orders.config.OrderServiceConfig;
import io.orderflow.orders.domain.Order;
import io.orderflow.orders.service.OrderLifecycle;
import io.orderflow.orders.service.OrderPlacement;
import io.orderflow.orders.service.PlacedOrder;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import jakarta.ws.rs.core.UriInfo;
import java.util.Locale;
import java.util.UUID;
import java.util.function.BiFunction;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The orders API: create, read, pay, ship, cancel. Input is validated here (Bean Validation on the parameters, strict
 * JSON binding, see {@link RestJson}); every failure becomes a problem response in {@link ProblemMapper}. The work
 * happens in {@link OrderPlacement} (creation, answered when the order's batch has committed; the HTTP thread does not
 * wait for it) and {@link OrderLifecycle} (reads and transitions, one transaction per request on a worker thread).
 *
 * <p>Every state change is recorded under the request's trace context ({@link TraceContext}): the {@code traceparent}
 * header if valid, else a new trace.
 */
@Path("/orders")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "orders")
public class OrderResource {

    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String IDEMPOTENT_REPLAYED = "Idempotent-Replayed";
    /** A UUID in its canonical 8-4-4-4-12 form, either case ({@link UUID#fromString} alone accepts "1-2-3-4-5"). */
    static final String UUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

    private static final String ID_MESSAGE = "must be an order id, a UUID such as 3f2b9c1e-7a4d-4e5f-9a0b-1c2d3e4f5a6b";

    private final OrderPlacement placement;
    private final OrderLifecycle lifecycle;
    private final OrderServiceConfig config;

    OrderResource(OrderPlacement placement, OrderLifecycle lifecycle, OrderServiceConfig config) {
        this.placement = placement;
        this.lifecycle = lifecycle;
        this.config = config;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(
            summary = "Create an order",
            description = "Creates a CREATED order and records OrderCreated. With an Idempotency-Key, a retry of the"
                    + " same request returns the order the first one created (201, same Location, header"
                    + " Idempotent-Replayed: true, nothing written); the same key with a different request is 422.")
    @APIResponse(
            responseCode = "201",
            description = "Created, or replayed for a known Idempotency-Key",
            headers = @Header(name = "Location", description = "/orders/{id}"),
            content = @Content(schema = @Schema(implementation = OrderResponse.class)))
    @APIResponse(
            responseCode = "400",
            description = "Invalid request",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(
            responseCode = "415",
            description = "Body is not application/json",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(
            responseCode = "422",
            description = "Idempotency-Key used before with another request",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(
            responseCode = "503",
            description = "Too many orders waiting to be written, shutting down, or the database unavailable; retry"
                    + " after Retry-After seconds (with the same Idempotency-Key)",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Uni<Response> create(
            @NotNull(message = "must be a JSON object with customerId, currency and items") @Valid
                    CreateOrderRequest request,
            @Parameter(description = "makes retries safe: 1 to 255 visible ASCII characters, unique per order")
                    @HeaderParam(IDEMPOTENCY_KEY)
                    @Pattern(regexp = "[\\x21-\\x7E]{1,255}", message = "must be 1 to 255 visible ASCII characters")
                    String idempotencyKey,
            @Parameter(description = "W3C trace context; a new trace is started if absent or invalid")
                    @HeaderParam(TraceContext.HEADER)
                    String traceparent,
            @Context UriInfo uri) {
        UriBuilder orders = uri.getBaseUriBuilder().path("orders");
        return Uni.createFrom()
                .completionStage(placement.place(request.toNewOrder(), idempotencyKey, TraceContext.of(traceparent)))
                .map(placed -> created(orders, placed));
    }

    private static Response created(UriBuilder orders, PlacedOrder placed) {
        Response.ResponseBuilder response = Response.created(
                        orders.path(placed.order().id().toString()).build())
                .entity(OrderResponse.of(placed.order()));
        if (placed.replayed()) {
            response.header(IDEMPOTENT_REPLAYED, "true");
        }
        return response.build();
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "Read an order")
    @APIResponse(
            responseCode = "200",
            description = "The order",
            content = @Content(schema = @Schema(implementation = OrderResponse.class)))
    @APIResponse(
            responseCode = "400",
            description = "Malformed order id",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(
            responseCode = "404",
            description = "Unknown order",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public OrderResponse get(@PathParam("id") @Pattern(regexp = UUID_PATTERN, message = ID_MESSAGE) String id) {
        return OrderResponse.of(lifecycle.get(orderId(id)));
    }

    @POST
    @Path("/{id}/pay")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Pay a CREATED order", description = "Records OrderPaid for the order's total.")
    @APIResponse(
            responseCode = "200",
            description = "The order, now PAID",
            content = @Content(schema = @Schema(implementation = OrderResponse.class)))
    @APIResponse(
            responseCode = "404",
            description = "Unknown order",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(
            responseCode = "409",
            description = "The order is not CREATED",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public OrderResponse pay(
            @PathParam("id") @Pattern(regexp = UUID_PATTERN, message = ID_MESSAGE) String id,
            @Valid PayOrderRequest body,
            @HeaderParam(TraceContext.HEADER) String traceparent) {
        String reference = body == null ? null : body.paymentReference();
        return transition(id, traceparent, (orderId, trace) -> lifecycle.pay(orderId, reference, trace));
    }

    @POST
    @Path("/{id}/ship")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Ship a PAID order", description = "Records OrderShipped.")
    @APIResponse(
            responseCode = "200",
            description = "The order, now SHIPPED",
            content = @Content(schema = @Schema(implementation = OrderResponse.class)))
    @APIResponse(
            responseCode = "404",
            description = "Unknown order",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(
            responseCode = "409",
            description = "The order is not PAID",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public OrderResponse ship(
            @PathParam("id") @Pattern(regexp = UUID_PATTERN, message = ID_MESSAGE) String id,
            @Valid ShipOrderRequest body,
            @HeaderParam(TraceContext.HEADER) String traceparent) {
        String carrier = body == null ? null : body.carrier();
        String trackingNumber = body == null ? null : body.trackingNumber();
        return transition(id, traceparent, (orderId, trace) -> lifecycle.ship(orderId, carrier, trackingNumber, trace));
    }

    @POST
    @Path("/{id}/cancel")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Cancel a CREATED or PAID order", description = "Records OrderCancelled with the reason.")
    @APIResponse(
            responseCode = "200",
            description = "The order, now CANCELLED",
            content = @Content(schema = @Schema(implementation = OrderResponse.class)))
    @APIResponse(
            responseCode = "404",
            description = "Unknown order",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(
            responseCode = "409",
            description = "The order is SHIPPED or CANCELLED",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public OrderResponse cancel(
            @PathParam("id") @Pattern(regexp = UUID_PATTERN, message = ID_MESSAGE) String id,
            @Valid CancelOrderRequest body,
            @HeaderParam(TraceContext.HEADER) String traceparent) {
        String reason = body == null || body.reason() == null ? config.defaultCancelReason() : body.reason();
        return transition(id, traceparent, (orderId, trace) -> lifecycle.cancel(orderId, reason, trace));
    }

    /**
     * What pay, ship and cancel share: {@code change} (one {@link OrderLifecycle} transition, given the order id and
     * the request's trace context) runs, and the changed order is the response. Its exceptions propagate unchanged, to
     * become problem responses in {@link ProblemMapper}.
     */
    private static OrderResponse transition(
            String validatedId, String traceparent, BiFunction<UUID, String, Order> change) {
        return OrderResponse.of(change.apply(orderId(validatedId), TraceContext.of(traceparent)));
    }

    private static UUID orderId(String validated) {
        return UUID.fromString(validated.toLowerCase(Locale.ROOT));
    }
}
