package io.orderflow.hostileframes;

import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Is the broker still serving? A fresh connection sends a valid ApiVersions (v3, what a client sends first) and the
 * broker must answer it well (its correlation id, no error, ApiVersions among its APIs) within the timeout, counted
 * from the start of the connect. Thread-safe: each probe has its own connection.
 */
final class LivenessProbe {
    static final short VERSION = 3;

    /** One probe: taken when {@code atFrame} frames had been drawn; a failure says why, else it is null. */
    record Outcome(long atFrame, long nanos, boolean answered, String failure) {
        boolean ok() {
            return failure == null;
        }
    }

    private final InetSocketAddress address;
    private final Duration timeout;
    private final AtomicInteger correlationIds = new AtomicInteger();

    LivenessProbe(InetSocketAddress address, Duration timeout) {
        this.address = address;
        this.timeout = timeout;
    }

    Outcome probe(long atFrame) {
        long start = System.nanoTime();
        long timeoutNanos = timeout.toNanos();
        try (WireClient client = WireClient.connect(address, (int) timeout.toMillis())) {
            long left = timeoutNanos - (System.nanoTime() - start);
            if (left <= 0) {
                return failed(atFrame, start, false, "connected after " + millis(System.nanoTime() - start));
            }
            client.readTimeout((int) Math.max(1, left / 1_000_000));
            int correlationId = correlationIds.incrementAndGet();
            RequestHeader header = client.send(new ApiVersionsRequest.Builder().build(VERSION), correlationId);
            ByteBuffer frame = client.receiveFrame();
            long nanos = System.nanoTime() - start;
            int answered = frame.getInt(0);
            if (answered != correlationId) {
                return failed(
                        atFrame, start, true, "answer with correlation id " + answered + ", sent " + correlationId);
            }
            ApiVersionsResponse response = (ApiVersionsResponse) AbstractResponse.parseResponse(frame, header);
            if (response.data().errorCode() != Errors.NONE.code()) {
                return failed(
                        atFrame,
                        start,
                        true,
                        "error " + Errors.forCode(response.data().errorCode()));
            }
            if (response.data().apiKeys().find(ApiKeys.API_VERSIONS.id) == null) {
                return failed(atFrame, start, true, "ApiVersions missing from the answer's APIs");
            }
            if (nanos > timeoutNanos) {
                return failed(atFrame, start, true, "answered after " + millis(nanos));
            }
            return new Outcome(atFrame, nanos, true, null);
        } catch (SocketTimeoutException e) {
            return failed(atFrame, start, false, "no answer within " + timeout.toMillis() + " ms");
        } catch (IOException e) {
            return failed(atFrame, start, false, e.toString());
        } catch (RuntimeException e) {
            return failed(atFrame, start, true, "unreadable answer: " + e);
        }
    }

    private static Outcome failed(long atFrame, long start, boolean answered, String why) {
        return new Outcome(atFrame, System.nanoTime() - start, answered, why);
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
}
