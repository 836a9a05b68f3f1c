package io.orderflow.broker.handler;

import io.orderflow.broker.protocol.DecodedRequest;
import io.orderflow.broker.protocol.MalformedRequestException;
import io.orderflow.broker.protocol.RequestDecoder;
import io.orderflow.broker.quota.ClientQuotas;
import io.orderflow.broker.quota.QuotaType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * Routes each request frame to the handler of its API and turns the answer into bytes to send. The table of
 * registered handlers and version ranges is the one source of what the broker supports: ApiVersions advertises
 * exactly it. A request outside it is refused as Apache Kafka refuses it: ApiVersions, at any version, gets the
 * {@code UNSUPPORTED_VERSION} answer at v0 with our ranges; any other API or version closes the connection without
 * an answer ({@link UnadvertisedRequestException}).
 *
 * <p>Errors: a frame that cannot be read throws {@link MalformedRequestException} (the connection closes); a
 * handler that fails unexpectedly answers the request with {@link ErrorTable}'s code for the exception, and an
 * answer that cannot be encoded at the request's version is replaced by the request's
 * {@code UNKNOWN_SERVER_ERROR} answer; both are counted and logged, rate-limited, by {@link RequestFaults}. Neither
 * costs the client its connection or crashes the broker. An error answer that kafka-clients cannot build from the
 * request's body ({@link ErrorAnswers}) closes the connection with an {@link UnanswerableRequestException}, like a
 * malformed request.
 *
 * <p>Client quotas ({@link ClientQuotas}): a Produce's bytes, and the handling time of every request but the login
 * ones (the thread's CPU time, so a Fetch waiting for data or a Produce waiting for its fsync costs nothing while it
 * waits), are charged here; a Fetch charges its answer's bytes itself. The longest throttle goes into the answer's
 * {@code throttle_time_ms} and into {@link Reply#throttleMs()}, for which the connection then stops reading. A
 * Produce with {@code acks=0} is exempt from the request-time quota, as in Kafka. Thread-safe after construction.
 */
public final class RequestDispatcher {
    /** A supported API: its handler and the version range we implement fully. */
    record Registration(ApiHandler<AbstractRequest> handler, short minVersion, short maxVersion) {}

    /** The requests a SASL listener serves before the login and after its session expired, as Kafka does. */
    private static final Set<ApiKeys> SESSIONLESS =
            EnumSet.of(ApiKeys.API_VERSIONS, ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE);

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<ApiKeys, Registration> registrations;
    private final BiConsumer<ApiKeys, Long> requestTimer;
    private final RequestFaults faults;
    private final Clock clock;
    private final ClientQuotas quotas;

    private RequestDispatcher(
            Map<ApiKeys, Registration> registrations,
            BiConsumer<ApiKeys, Long> requestTimer,
            RequestFaults faults,
            Clock clock,
            ClientQuotas quotas) {
        this.registrations = Collections.unmodifiableMap(new EnumMap<>(registrations));
        this.requestTimer = requestTimer;
        this.faults = faults;
        this.clock = clock;
        this.quotas = quotas;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The answer to one frame. {@link #answer()} may wait (a Produce waiting for its fsync) and returns the bytes
     * to send, or null when the protocol wants no response (a Produce with {@code acks=0}); call it once. {@link
     * #throttleMs()} is how long the connection must not be read after this request, for the client's quotas.
     */
    public record Reply(Supplier<Send> answer, int throttleMs) {
        public Reply(Supplier<Send> answer) {
            this(answer, 0);
        }
    }

    /**
     * Whether the frame's request may start while earlier requests of its connection still wait for their
     * answers (see {@link PipelinedApiHandler}). Reads only the API key; a frame too short to have one is not.
     */
    public boolean mayOverlap(RequestFrame frame) {
        short id = frame.apiKey();
        if (id < 0) {
            return false;
        }
        Registration registration = ApiKeys.hasId(id) ? registrations.get(ApiKeys.forId(id)) : null;
        return registration != null && registration.handler() instanceof PipelinedApiHandler;
    }

    /**
     * Handles one frame: decodes it and does the request's work now; what may wait is left to the reply.
     *
     * @throws MalformedRequestException when the frame cannot be read, or is a request the broker does not
     *     advertise ({@link UnadvertisedRequestException}) or cannot answer ({@link UnanswerableRequestException});
     *     the caller closes the connection
     * @throws UnauthenticatedRequestException when the connection must log in (again) before this request; the
     *     caller closes the connection
     */
    public Reply dispatch(ClientInfo client, ByteBuffer frame) {
        return dispatch(client, RequestFrame.unaccounted(frame));
    }

    /**
     * As {@link #dispatch(ClientInfo, ByteBuffer)}, releasing the frame's memory as soon as its bytes are decoded,
     * except a Produce's, whose records are appended from them (see {@link RequestFrame}).
     */
    public Reply dispatch(ClientInfo client, RequestFrame frame) {
        int frameBytes = frame.size();
        DecodedRequest request = RequestDecoder.decode(frame.take());
        ApiKeys api = request.header().apiKey();
        if (api != ApiKeys.PRODUCE) {
            frame.release();
        }
        short version = request.header().apiVersion();
        if (!client.session().mayServe(clock.millis()) && !SESSIONLESS.contains(api)) {
            throw new UnauthenticatedRequestException(api
                    + (client.session().principal() == null
                            ? " before a SASL login"
                            : " after the login's session expired (connections.max.reauth.ms)"));
        }
        Registration registration = registrations.get(api);
        long start = System.nanoTime();
        if (registration == null || version < registration.minVersion() || version > registration.maxVersion()) {
            if (api != ApiKeys.API_VERSIONS) {
                throw registration == null
                        ? new UnadvertisedRequestException(api, version, (short) -1, (short) -1)
                        : new UnadvertisedRequestException(
                                api, version, registration.minVersion(), registration.maxVersion());
            }
            ApiVersionsResponse refusal = apiVersions(Errors.UNSUPPORTED_VERSION);
            return reply(request, client, () -> refusal, (short) 0, start, 0);
        }
        ClientInfo named = new ClientInfo(
                client.connectionId(),
                request.header().clientId() == null ? "" : request.header().clientId(),
                client.host(),
                client.session());
        boolean timed = quotas.enforces(QuotaType.REQUEST) && !SESSIONLESS.contains(api);
        long cpuStart = timed ? cpuNanos() : 0;
        PipelinedApiHandler.Completion completion;
        AbstractResponse answered = null;
        try {
            if (registration.handler() instanceof PipelinedApiHandler<AbstractRequest> pipelined) {
                completion = pipelined.start(named, request.body());
            } else {
                answered = registration.handler().handle(named, request.body());
                AbstractResponse response = answered;
                completion = () -> response;
            }
        } catch (RuntimeException e) {
            answered = failed(request, named, e);
            AbstractResponse failure = answered;
            completion = () -> failure;
        }
        int throttle = answered == null ? 0 : answered.throttleTimeMs();
        String user = named.principal().name();
        if (api == ApiKeys.PRODUCE) {
            throttle = Math.max(throttle, quotas.chargeProduce(user, named.clientId(), frameBytes));
        }
        if (timed && !(request.body() instanceof ProduceRequest produce && produce.acks() == 0)) {
            throttle = Math.max(throttle, quotas.chargeRequestTime(user, named.clientId(), cpuNanos() - cpuStart));
        }
        return reply(request, named, completion, version, start, throttle);
    }

    private Reply reply(
            DecodedRequest request,
            ClientInfo client,
            PipelinedApiHandler.Completion completion,
            short responseVersion,
            long start,
            int throttleMs) {
        ApiKeys api = request.header().apiKey();
        return new Reply(
                () -> {
                    AbstractResponse response;
                    try {
                        response = completion.await();
                    } catch (RuntimeException e) {
                        response = failed(request, client, e);
                    }
                    requestTimer.accept(api, System.nanoTime() - start);
                    if (response == null) {
                        return null;
                    }
                    if (throttleMs > response.throttleTimeMs()) {
                        response.maybeSetThrottleTimeMs(throttleMs);
                    }
                    return encode(request, client, response, responseVersion);
                },
                throttleMs);
    }

    /** This thread's CPU time; wall time where the JVM cannot tell. */
    private static long cpuNanos() {
        long cpu = THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
        return cpu < 0 ? System.nanoTime() : cpu;
    }

    /**
     * The answer's bytes at {@code version}. An answer the codec refuses (a field set that the version does not
     * have) is the broker's bug: it is recorded in {@link RequestFaults} and the request is answered with its
     * error response for {@code UNKNOWN_SERVER_ERROR} instead, so the client keeps its connection and learns
     * something went wrong. If even that cannot be built or encoded, the connection closes ({@link
     * UnanswerableRequestException}).
     */
    private Send encode(DecodedRequest request, ClientInfo client, AbstractResponse response, short version) {
        var header = request.header().toResponseHeader();
        try {
            return response.toSend(header, version);
        } catch (RuntimeException e) {
            faults.record(RequestFaults.Stage.ENCODE, request.header().apiKey(), version, client, e);
            return ErrorAnswers.send(
                    request,
                    Errors.UNKNOWN_SERVER_ERROR.exception("the broker could not encode its answer at this version"),
                    version);
        }
    }

    /**
     * A handler threw: answered with {@link ErrorTable}'s code. A failure the table has no code for is a bug and
     * recorded as one; so is a storage failure, the broker's own trouble. A failure it names (the client's bad
     * request, a policy) is just the answer.
     */
    private AbstractResponse failed(DecodedRequest request, ClientInfo client, RuntimeException e) {
        Errors error = ErrorTable.errorFor(e);
        if (error == Errors.UNKNOWN_SERVER_ERROR || error == Errors.KAFKA_STORAGE_ERROR) {
            faults.record(
                    RequestFaults.Stage.HANDLE,
                    request.header().apiKey(),
                    request.header().apiVersion(),
                    client,
                    e);
        }
        return ErrorAnswers.of(request, ErrorTable.exceptionFor(request.header().apiKey(), e));
    }

    /**
     * A bare SASL token after a v0 SaslHandshake: the answer as a size-prefixed frame without a Kafka header.
     *
     * @throws UnauthenticatedRequestException when the login failed; the caller closes the connection
     */
    public Reply rawSaslToken(ClientInfo client, RequestFrame frame) {
        Registration registration = registrations.get(ApiKeys.SASL_AUTHENTICATE);
        Object registered = registration == null ? null : registration.handler();
        if (!(registered instanceof SaslAuthenticateHandler handler)) {
            throw new UnauthenticatedRequestException("a bare SASL token, but SASL is not served");
        }
        ByteBuffer bytes = frame.take();
        byte[] token = new byte[bytes.remaining()];
        bytes.get(token);
        byte[] answer = handler.rawToken(client, token)
                .orElseThrow(() -> new UnauthenticatedRequestException("a SASL login (v0 handshake) that failed"));
        return new Reply(() -> org.apache.kafka.common.network.ByteBufferSend.sizePrefixed(ByteBuffer.wrap(answer)));
    }

    /** Our ApiVersions answer: exactly the registered APIs and ranges. */
    public ApiVersionsResponse apiVersions(Errors error) {
        ApiVersionsResponseData data = new ApiVersionsResponseData().setErrorCode(error.code());
        registrations.forEach((api, r) -> data.apiKeys()
                .add(new ApiVersionsResponseData.ApiVersion()
                        .setApiKey(api.id)
                        .setMinVersion(r.minVersion())
                        .setMaxVersion(r.maxVersion())));
        return new ApiVersionsResponse(data);
    }

    public Map<ApiKeys, Registration> registrations() {
        return registrations;
    }

    /** Collects handlers; see {@link RequestDispatcher}. */
    public static final class Builder {
        private final Map<ApiKeys, Registration> registrations = new EnumMap<>(ApiKeys.class);
        private BiConsumer<ApiKeys, Long> requestTimer = (api, nanos) -> {};
        private RequestFaults faults = new RequestFaults(Clock.systemUTC());
        private Clock clock = Clock.systemUTC();
        private ClientQuotas quotas;

        /** Supports {@code api} from its oldest version to {@code maxVersion}. */
        @SuppressWarnings("unchecked")
        public <Q extends AbstractRequest> Builder register(ApiKeys api, int maxVersion, ApiHandler<Q> handler) {
            return register(api, api.oldestVersion(), maxVersion, handler);
        }

        @SuppressWarnings("unchecked")
        public <Q extends AbstractRequest> Builder register(
                ApiKeys api, int minVersion, int maxVersion, ApiHandler<Q> handler) {
            if (minVersion < api.oldestVersion() || maxVersion > api.latestVersion(true) || minVersion > maxVersion) {
                throw new IllegalArgumentException(api + " " + minVersion + ".." + maxVersion
                        + " is outside the codec's " + api.oldestVersion() + ".." + api.latestVersion(true));
            }
            registrations.put(api, new Registration((ApiHandler<AbstractRequest>) handler, (short) minVersion, (short)
                    maxVersion));
            return this;
        }

        /** Called after each request with its API and handling time in nanoseconds, for metrics. */
        public Builder requestTimer(BiConsumer<ApiKeys, Long> timer) {
            this.requestTimer = timer;
            return this;
        }

        /** Where the broker's own failures while answering are counted and logged. */
        public Builder faults(RequestFaults faults) {
            this.faults = faults;
            return this;
        }

        /** The clock that login sessions expire by. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** The client quotas to charge requests to; none by default. */
        public Builder quotas(ClientQuotas quotas) {
            this.quotas = quotas;
            return this;
        }

        public RequestDispatcher build() {
            return new RequestDispatcher(
                    registrations, requestTimer, faults, clock, quotas == null ? ClientQuotas.none() : quotas);
        }
    }
}
