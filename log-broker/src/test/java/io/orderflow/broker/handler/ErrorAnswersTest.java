package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.log.ManualClock;
import io.orderflow.broker.protocol.MalformedRequestException;
import io.orderflow.broker.protocol.RequestVariants;
import io.orderflow.broker.protocol.RequestVariants.Variant;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * A request whose handler fails is answered with the failure's error code at the request's version, whatever its
 * body: every API key at every version the codec knows, with the bodies of {@link RequestVariants} (defaults, every
 * nullable field null, every collection empty), through a dispatcher whose every handler throws. kafka-clients
 * cannot build the error answer of every body (DescribeUserScramCredentials with {@code users} null fails with a
 * NullPointerException); such a request is one the broker cannot answer, and the dispatcher says so with a
 * {@link MalformedRequestException}, on which the connection closes with one WARN line. Nothing else may come out of
 * the dispatcher. Socket-free; the TCP side is {@code EveryApiKeyMatrixTest}.
 */
class ErrorAnswersTest {
    private static final int CORRELATION_ID = 7;

    /** Every API key at every version the codec knows, each failing with a code of the protocol's own. */
    private static RequestDispatcher everyApiFailing() {
        RequestDispatcher.Builder builder = RequestDispatcher.builder().faults(new RequestFaults(new ManualClock(0)));
        for (ApiKeys api : ApiKeys.values()) {
            if (api.latestVersion(true) < api.oldestVersion()) {
                continue; // an API key the codec keeps only by name (LeaderAndIsr and the other removed ones)
            }
            builder.register(api, api.oldestVersion(), api.latestVersion(true), (client, request) -> {
                throw new InvalidRequestException("the handler of " + api.name + " refuses v" + request.version());
            });
        }
        return builder.build();
    }

    @TestFactory
    Stream<DynamicTest> aFailedRequestIsAnsweredWithItsErrorOrClosedWhateverItsBody() {
        RequestDispatcher dispatcher = everyApiFailing();
        return Arrays.stream(ApiKeys.values())
                .map(api -> DynamicTest.dynamicTest(
                        api.name,
                        () -> assertThat(problems(dispatcher, api))
                                .as("what went wrong for %s", api.name)
                                .isEmpty()));
    }

    /** What went wrong with each body of {@code api}; empty when each was answered or refused as it should be. */
    private static List<String> problems(RequestDispatcher dispatcher, ApiKeys api) throws IOException {
        ClientInfo client = new ClientInfo("conn-1", "variants", "/127.0.0.1:5000");
        List<String> problems = new ArrayList<>();
        for (Variant variant : RequestVariants.of(api, CORRELATION_ID)) {
            try {
                Send send = dispatcher
                        .dispatch(client, ByteBuffer.wrap(variant.frame()))
                        .answer()
                        .get();
                if (send != null) {
                    problems.addAll(check(variant, send));
                }
            } catch (UnanswerableRequestException closes) {
                // the connection closes, with the message as its one WARN line
                if (closes.api() != variant.api() || closes.version() != variant.version()) {
                    problems.add(variant + ": refused as " + closes.api() + " v" + closes.version());
                }
            } catch (MalformedRequestException unreadable) {
                // the codec refuses the body (DescribeAcls with UNKNOWN filters): closed as well
            } catch (RuntimeException e) {
                problems.add(variant + ": " + e);
            }
        }
        return problems;
    }

    private static List<String> check(Variant variant, Send send) throws IOException {
        ByteBuffer frame = ByteBuffer.wrap(BytesChannel.written(send));
        assertThat(frame.getInt()).isEqualTo(frame.remaining());
        if (frame.getInt(frame.position()) != CORRELATION_ID) {
            return List.of(variant + ": answered with correlation id " + frame.getInt(frame.position()));
        }
        AbstractResponse response = AbstractResponse.parseResponse(frame.slice(), variant.header());
        // An error answer may have no place for the code (no partitions named, or an old version without the
        // top-level field), and ApiVersions answers itself.
        if (variant.api() == ApiKeys.API_VERSIONS
                || response.errorCounts().keySet().stream()
                        .allMatch(e -> e == Errors.INVALID_REQUEST || e == Errors.NONE)) {
            return List.of();
        }
        return List.of(variant + ": answered " + response.errorCounts());
    }

    /** A channel that keeps what is written to it. */
    private static final class BytesChannel implements TransferableChannel {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        static byte[] written(Send send) throws IOException {
            BytesChannel channel = new BytesChannel();
            while (!send.completed()) {
                send.writeTo(channel);
            }
            return channel.bytes.toByteArray();
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            byte[] chunk = new byte[n];
            src.get(chunk);
            bytes.writeBytes(chunk);
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
            ByteBuffer buf = ByteBuffer.allocate((int) count);
            fileChannel.read(buf, position);
            return write(buf.flip());
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }
}
