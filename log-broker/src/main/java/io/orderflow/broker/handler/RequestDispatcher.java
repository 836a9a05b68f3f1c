package io.orderflow.broker.handler;

import io.orderflow.broker.protocol.DecodedRequest;
import io.orderflow.broker.protocol.MalformedRequestException;
import io.orderflow.broker.protocol.RequestDecoder;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes each request frame to the handler of its API and turns the answer into bytes to send. The table of
 * registered handlers and version ranges is the one source of what the broker supports: ApiVersions
 * advertises exactly it, and anything outside it is refused with {@code UNSUPPORTED_VERSION}.
 *
 * <p>Errors: a frame that cannot be read throws {@link MalformedRequestException} (the connection closes); a
 * handler that fails unexpectedly answers the request with {@link ErrorTable}'s code for the exception, never
 * crashing the connection or the broker. Thread-safe after construction.
 */
public final class RequestDispatcher {
    private static final Logger log = LoggerFactory.getLogger(RequestDispatcher.class);

    /** A supported API: its handler and the version range we implement fully. */
    record Registration(ApiHandler<AbstractRequest> handler, short minVersion, short maxVersion) {}

    private final Map<ApiKeys, Registration> registrations;
    private final BiConsumer<ApiKeys, Long> requestTimer;

    private RequestDispatcher(Map<ApiKeys, Registration> registrations, BiConsumer<ApiKeys, Long> requestTimer) {
        this.registrations = Collections.unmodifiableMap(new EnumMap<>(registrations));
        this.requestTimer = requestTimer;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The answer to one frame: bytes to send, or nothing (acks=0 produce). */
    public record Reply(Send send, ApiKeys api) {}

    /**
     * Handles one frame.
     *
     * @return the reply, whose {@code send} is null when the protocol wants no response
     * @throws MalformedRequestException when the frame cannot be read; the caller closes the connection
     */
    public Reply dispatch(ClientInfo client, ByteBuffer frame) {
        DecodedRequest request = RequestDecoder.decode(frame);
        ApiKeys api = request.header().apiKey();
        short version = request.header().apiVersion();
        Registration registration = registrations.get(api);
        long start = System.nanoTime();
        AbstractResponse response;
        short responseVersion = version;
        if (registration == null || version < registration.minVersion() || version > registration.maxVersion()) {
            if (api == ApiKeys.API_VERSIONS) {
                responseVersion = 0;
                response = apiVersions(Errors.UNSUPPORTED_VERSION);
            } else {
                response = request.body()
                        .getErrorResponse(new UnsupportedVersionException(api + " v" + version
                                + " is not supported by this broker"
                                + (registration == null
                                        ? ""
                                        : " (supported: " + registration.minVersion() + ".." + registration.maxVersion()
                                                + ")")));
            }
        } else {
            ClientInfo named =
                    new ClientInfo(client.connectionId(), request.header().clientId(), client.host());
            try {
                response = registration.handler().handle(named, request.body());
            } catch (RuntimeException e) {
                log.atWarn()
                        .setCause(e)
                        .addKeyValue("api", api.name)
                        .addKeyValue("version", version)
                        .addKeyValue("connection", named.connectionId())
                        .addKeyValue("clientId", named.clientId())
                        .addKeyValue("remote", named.host())
                        .log("Request failed");
                response = request.body().getErrorResponse(ErrorTable.exceptionFor(e));
            }
        }
        requestTimer.accept(api, System.nanoTime() - start);
        if (response == null) {
            return new Reply(null, api);
        }
        return new Reply(response.toSend(request.header().toResponseHeader(), responseVersion), api);
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

        public RequestDispatcher build() {
            return new RequestDispatcher(registrations, requestTimer);
        }
    }
}
