package io.orderflow.broker.protocol;

import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Turns one request frame (the bytes after the 4-byte size) into a header and a typed body, using the
 * kafka-clients codec. No I/O; every failure is a {@link MalformedRequestException}, whatever the bytes.
 * Stateless and thread-safe.
 */
public final class RequestDecoder {
    private static final int MIN_HEADER_BYTES = 2 + 2 + 4 + 2; // api key, version, correlation id, client id length

    private RequestDecoder() {}

    public static DecodedRequest decode(ByteBuffer frame) {
        ByteBuffer buf = frame.duplicate();
        if (buf.remaining() < MIN_HEADER_BYTES) {
            throw new MalformedRequestException(
                    "A frame of " + buf.remaining() + " bytes is shorter than a request header");
        }
        short apiKey = buf.getShort(buf.position());
        short version = buf.getShort(buf.position() + 2);
        if (!ApiKeys.hasId(apiKey)) {
            throw new MalformedRequestException("Unknown API key " + apiKey);
        }
        ApiKeys api = ApiKeys.forId(apiKey);
        if (version < api.oldestVersion() || version > api.latestVersion(true)) {
            if (api == ApiKeys.API_VERSIONS) {
                // Clients newer than us send their newest ApiVersions; the protocol says to answer it at v0 with
                // UNSUPPORTED_VERSION and our ranges, so read the v0 header and ignore the body.
                return decodeApiVersionsFromTheFuture(buf, version);
            }
            throw new MalformedRequestException(
                    api + " version " + version + " is outside what this broker's codec knows (" + api.oldestVersion()
                            + ".." + api.latestVersion(true) + ")");
        }
        try {
            RequestHeader header = RequestHeader.parse(buf);
            AbstractRequest body = AbstractRequest.parseRequest(api, version, new ByteBufferAccessor(buf)).request;
            return new DecodedRequest(header, body);
        } catch (RuntimeException e) {
            throw new MalformedRequestException("Cannot read " + api + " v" + version, e);
        }
    }

    private static DecodedRequest decodeApiVersionsFromTheFuture(ByteBuffer buf, short version) {
        try {
            int correlationId = buf.getInt(buf.position() + 4);
            short clientIdLength = buf.getShort(buf.position() + 8);
            String clientId = "";
            if (clientIdLength > 0 && buf.remaining() >= MIN_HEADER_BYTES + clientIdLength) {
                byte[] bytes = new byte[clientIdLength];
                buf.get(buf.position() + MIN_HEADER_BYTES, bytes);
                clientId = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
            }
            RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, version, clientId, correlationId);
            ApiVersionsRequest body = new ApiVersionsRequest.Builder().build((short) 0);
            return new DecodedRequest(header, body);
        } catch (RuntimeException e) {
            throw new MalformedRequestException("Cannot read ApiVersions v" + version + " header", e);
        }
    }
}
