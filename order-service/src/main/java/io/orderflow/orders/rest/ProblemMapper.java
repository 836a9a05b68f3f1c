package io.orderflow.orders.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.orderflow.orders.domain.ConcurrentOrderChangeException;
import io.orderflow.orders.domain.IdempotencyKeyReusedException;
import io.orderflow.orders.domain.IllegalTransitionException;
import io.orderflow.orders.domain.OrderNotFoundException;
import io.orderflow.orders.service.PlacementBacklogFullException;
import jakarta.validation.ConstraintViolationException;
import jakarta.validation.ValidationException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The REST boundary's one error table: every exception that leaves a resource method, or that Quarkus raises before
 * one is reached, becomes an RFC 9457 {@code application/problem+json} answer here, and nowhere else.
 *
 * <pre>
 * exception                                         status  type (urn:orderflow:problem:...)
 * Bean Validation of a resource method's input      400     invalid-request, errors[] per field
 * Jackson: malformed JSON, wrong JSON type, unknown 400     invalid-request, errors[] (field or "body")
 *   field, trailing content, oversized number
 * OrderNotFoundException                            404     order-not-found
 * IllegalTransitionException                        409     transition-not-allowed
 * ConcurrentOrderChangeException, unique/serial-    409     concurrent-change
 *   ization/deadlock failure from PostgreSQL
 * IdempotencyKeyReusedException                     422     idempotency-key-reused
 * PlacementBacklogFullException                     503     busy, with Retry-After
 * PostgreSQL unreachable or restarting (SQLSTATE    503     database-unavailable, with Retry-After
 *   class 08, 57P01-57P03, 53300)
 * WebApplicationException (unknown path, 405, 406,  its own about:blank (or invalid-request for a 400)
 *   415, ...)
 * anything else                                     500     internal-error, logged with an incident id
 * </pre>
 *
 * <p>Bad input never reaches the last row: the request tests throw malformed and random bodies at the API and accept
 * only 4xx answers. Problems are serialised here, to text, so that they are sent as problem+json whatever the request's
 * {@code Accept} header said (a 406 must still explain itself).
 *
 * <p>The mappers outrank Quarkus's built-in ones for the same exceptions (priority {@value #PRIORITY} &lt;
 * {@code Priorities.USER}).
 */
public class ProblemMapper {

    static final int PRIORITY = 4000;
    static final String RETRY_AFTER_SECONDS = "1";
    private static final String TYPE_PREFIX = "urn:orderflow:problem:";
    /** SQLSTATEs meaning "another transaction got there first": unique violation, serialization failure, deadlock. */
    private static final Set<String> CONFLICT_STATES = Set.of("23505", "40001", "40P01");
    /**
     * SQLSTATEs meaning "the database is not there right now": the connection-exception class (08: refused, broken,
     * lost), a server shutting down or starting (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now),
     * no connection slot left (53300).
     */
    private static final Set<String> UNAVAILABLE_STATES = Set.of("57P01", "57P02", "57P03", "53300");

    private static final Logger log = Logger.getLogger(ProblemMapper.class);

    private final ObjectMapper json;

    ProblemMapper(ObjectMapper json) {
        this.json = json;
    }

    @ServerExceptionMapper(priority = PRIORITY)
    public Response invalidInput(ValidationException exception, UriInfo uri) {
        if (!(exception instanceof ConstraintViolationException violations)
                || violations.getConstraintViolations().isEmpty()
                || !violations.getConstraintViolations().stream().allMatch(FieldPaths::isAboutInput)) {
            return internalError(exception, uri);
        }
        List<FieldError> errors = violations.getConstraintViolations().stream()
                .map(FieldPaths::of)
                .sorted(Comparator.comparing(FieldError::field).thenComparing(FieldError::message))
                .toList();
        return invalidRequest(errors, uri);
    }

    @ServerExceptionMapper(priority = PRIORITY)
    public Response mismatchedJson(MismatchedInputException exception, UriInfo uri) {
        return invalidRequest(List.of(FieldPaths.of(exception)), uri);
    }

    @ServerExceptionMapper(priority = PRIORITY)
    public Response invalidJson(JsonProcessingException exception, UriInfo uri) {
        return invalidRequest(List.of(FieldPaths.of(exception)), uri);
    }

    @ServerExceptionMapper(priority = PRIORITY)
    public Response orderNotFound(OrderNotFoundException exception, UriInfo uri) {
        return problem(404, "order-not-found", "Order not found", exception.getMessage(), uri);
    }

    @ServerExceptionMapper(priority = PRIORITY)
    public Response transitionNotAllowed(IllegalTransitionException exception, UriInfo uri) {
        return problem(409, "transition-not-allowed", "Transition not allowed", exception.getMessage(), uri);
    }

    @ServerExceptionMapper(priority = PRIORITY)
    public Response concurrentChange(ConcurrentOrderChangeException exception, UriInfo uri) {
        return problem(409, "concurrent-change", "Concurrent change", exception.getMessage(), uri);
    }

    @ServerExceptionMapper(priority = PRIORITY)
    public Response idempotencyKeyReused(IdempotencyKeyReusedException exception, UriInfo uri) {
        return problem(422, "idempotency-key-reused", "Idempotency key reused", exception.getMessage(), uri);
    }

    @ServerExceptionMapper(priority = PRIORITY)
    public Response busy(PlacementBacklogFullException exception, UriInfo uri) {
        return Response.fromResponse(problem(503, "busy", "Busy", exception.getMessage(), uri))
                .header("Retry-After", RETRY_AFTER_SECONDS)
                .build();
    }

    @ServerExceptionMapper(priority = PRIORITY)
    public Response http(WebApplicationException exception, UriInfo uri) {
        if (exception.getCause() instanceof JsonProcessingException jsonError) {
            return invalidRequest(List.of(FieldPaths.of(jsonError)), uri);
        }
        int status = exception.getResponse().getStatus();
        if (status >= 500) {
            return internalError(exception, uri);
        }
        if (status == 400) {
            return invalidRequest(List.of(), uri);
        }
        Response.Status known = Response.Status.fromStatusCode(status);
        String title = known != null ? known.getReasonPhrase() : "HTTP " + status;
        String detail = switch (status) {
            case 404 -> "no resource at this path; the API is described at /q/openapi";
            case 406 -> "this resource answers with application/json only";
            case 415 -> "send the request body as application/json";
            default -> exception.getMessage();
        };
        Response response = send(new Problem("about:blank", title, status, detail, instance(uri), null));
        String allow = exception.getResponse().getHeaderString("Allow");
        return allow == null
                ? response
                : Response.fromResponse(response).header("Allow", allow).build();
    }

    @ServerExceptionMapper(priority = PRIORITY)
    public Response unexpected(Exception exception, UriInfo uri) {
        return internalError(exception, uri);
    }

    private Response invalidRequest(List<FieldError> errors, UriInfo uri) {
        String detail = errors.isEmpty()
                ? "the request is invalid"
                : "the request is invalid at "
                        + errors.stream().map(FieldError::field).distinct().collect(Collectors.joining(", "));
        return send(
                new Problem(TYPE_PREFIX + "invalid-request", "Invalid request", 400, detail, instance(uri), errors));
    }

    /**
     * 409 if PostgreSQL refused the write because another transaction won a race, 503 if it could not be reached (a
     * crash, a restart: the client should retry, not report a bug), else a 500.
     */
    private Response internalError(Exception exception, UriInfo uri) {
        Optional<SQLException> unavailable = sqlCause(exception, ProblemMapper::isUnavailable);
        if (unavailable.isPresent()) {
            log.warnf(
                    "the database was unavailable answering %s: %s (SQLSTATE %s)",
                    instance(uri),
                    unavailable.get().getMessage(),
                    unavailable.get().getSQLState());
            return Response.fromResponse(problem(
                            503,
                            "database-unavailable",
                            "Database unavailable",
                            "the database could not be reached; retry in a moment. A change asked for may have been"
                                    + " made before the connection broke: read the order to see, or retry POST /orders"
                                    + " with the same Idempotency-Key, which places it once ("
                                    + unavailable
                                            .get()
                                            .getMessage()
                                            .lines()
                                            .findFirst()
                                            .orElse("") + ")",
                            uri))
                    .header("Retry-After", RETRY_AFTER_SECONDS)
                    .build();
        }
        Optional<SQLException> conflict = sqlCause(exception, ProblemMapper::isConflict);
        if (conflict.isPresent()) {
            return problem(
                    409,
                    "concurrent-change",
                    "Concurrent change",
                    "the request conflicted with a concurrent change and was rolled back; retry it ("
                            + conflict.get().getMessage().lines().findFirst().orElse("") + ")",
                    uri);
        }
        UUID incident = UUID.randomUUID();
        log.errorf(exception, "incident %s: unexpected error answering %s", incident, instance(uri));
        return problem(
                500,
                "internal-error",
                "Internal error",
                "the server failed to answer; nothing was changed unless the answer to a retry says otherwise"
                        + " (incident " + incident + ")",
                uri);
    }

    private static boolean isConflict(SQLException sql) {
        return sql.getSQLState() != null && CONFLICT_STATES.contains(sql.getSQLState()); // Set.of refuses null
    }

    private static boolean isUnavailable(SQLException sql) {
        String state = sql.getSQLState();
        return state != null && (state.startsWith("08") || UNAVAILABLE_STATES.contains(state));
    }

    /** The first SQLException in {@code exception}'s cause chain that {@code matches}. */
    private static Optional<SQLException> sqlCause(Throwable exception, Predicate<SQLException> matches) {
        for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && matches.test(sql)) {
                return Optional.of(sql);
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return Optional.empty();
    }

    private Response problem(int status, String slug, String title, String detail, UriInfo uri) {
        return send(new Problem(TYPE_PREFIX + slug, title, status, detail, instance(uri), null));
    }

    private Response send(Problem problem) {
        String body;
        try {
            body = json.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write problem " + problem, e);
        }
        return Response.status(problem.status())
                .type(Problem.MEDIA_TYPE)
                .entity(body)
                .build();
    }

    private static String instance(UriInfo uri) {
        try {
            return uri == null ? null : uri.getRequestUri().getRawPath();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
