package io.orderflow.hostileframes;

import io.orderflow.frames.FrameMutation;
import io.orderflow.frames.RequestCorpus;
import io.orderflow.frames.RequestCorpus.Sample;
import io.orderflow.frames.RequestCorpus.Target;
import io.orderflow.hostileframes.WireFrame.Kind;
import io.orderflow.property.Gen;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Draws hostile frames, one connection's worth, from one {@link Gen}: the same seed draws the same frames.
 *
 * <p>Every frame starts from a valid request of {@link RequestCorpus}: 60% one of the APIs the broker serves
 * (ApiVersions, Metadata, Produce, Fetch, ListOffsets, InitProducerId, every version, naming the run's target topic),
 * 35% any other API with a default body, 5% CreateTopics. It then becomes one {@link Kind} of hostile frame, in the
 * shares the kinds declare: mutated ({@link FrameMutation#any}), its API key or version swapped, spliced with another
 * request, or sent behind a lying size prefix. A long claim is drawn log-uniformly between the true size and the most
 * claimed, so every order of magnitude up to 100 MiB is as likely as the next.
 *
 * <p>A lying size prefix that claims more than follows ends with the harness hanging up, whether fewer bytes or more
 * whole frames follow: the broker must give back whatever it set aside for that frame. Left open, such a connection
 * would swallow every frame after it into one body (up to 100 MiB of them), and nothing else on it would be decoded.
 *
 * <p>Not thread-safe: one per connection, as {@link Gen} is.
 */
final class HostileFrameSource {
    private static final int[] API_KEYS =
            Arrays.stream(ApiKeys.values()).mapToInt(api -> api.id).toArray();

    /** The valid requests frames start from, shared by every connection (read only). */
    record Corpus(List<byte[]> served, List<byte[]> otherApis, List<byte[]> createTopics) {
        /** Requests naming {@code target}, and CreateTopics of {@code newTopic}. */
        static Corpus of(Target target, String newTopic) {
            return new Corpus(
                    frames(RequestCorpus.served(target, RequestCorpus.records("hostile", "frame"))),
                    frames(RequestCorpus.otherApis()),
                    frames(RequestCorpus.createTopics(newTopic)));
        }

        int size() {
            return served.size() + otherApis.size() + createTopics.size();
        }

        private static List<byte[]> frames(List<Sample> samples) {
            return samples.stream().map(Sample::frame).toList();
        }
    }

    private final Gen gen;
    private final int maxClaimedBytes;
    private final LinkedHashMap<Function<Gen, ? extends WireFrame>, Integer> kinds = new LinkedHashMap<>();
    private final LinkedHashMap<Function<Gen, ? extends byte[]>, Integer> requests = new LinkedHashMap<>();

    HostileFrameSource(Corpus corpus, Gen gen, int maxClaimedBytes) {
        this.gen = gen;
        this.maxClaimedBytes = maxClaimedBytes;
        for (Kind kind : Kind.values()) {
            kinds.put(g -> draw(kind), kind.percent);
        }
        requests.put(g -> g.oneOf(corpus.served()), 60);
        requests.put(g -> g.oneOf(corpus.otherApis()), 35);
        requests.put(g -> g.oneOf(corpus.createTopics()), 5);
    }

    WireFrame next() {
        return gen.frequency(kinds);
    }

    private WireFrame draw(Kind kind) {
        byte[] request = gen.frequency(requests);
        return switch (kind) {
            case MUTATED -> honest(kind, FrameMutation.applyAll(request, gen.list(1, 4, FrameMutation::any)));
            case SWAPPED -> honest(kind, swapped(request));
            case SPLICED ->
                honest(kind, FrameMutation.splice(gen, gen.frequency(requests)).apply(request));
            case SHORT_SIZE -> new WireFrame(kind, withSize(gen.ints(0, request.length - 1), request), false);
            case LONG_SIZE_THEN_HANG_UP -> {
                byte[] sent = Arrays.copyOf(request, gen.ints(0, request.length));
                yield new WireFrame(kind, withSize(longClaim(request.length), sent), true);
            }
            case LONG_SIZE_THEN_MORE_FRAMES -> {
                ByteBuffer out = ByteBuffer.allocate(64 * 1024);
                out.put(withSize(longClaim(request.length), request));
                int more = gen.ints(1, 8);
                for (int i = 0; i < more; i++) {
                    byte[] next = withSize(gen.frequency(requests));
                    if (next.length > out.remaining()) {
                        break;
                    }
                    out.put(next);
                }
                yield new WireFrame(kind, Arrays.copyOf(out.array(), out.position()), true);
            }
        };
    }

    /** The API key, the version or both replaced: known keys mostly, and values no API has. */
    private byte[] swapped(byte[] request) {
        int what = gen.ints(0, 2);
        byte[] frame = request;
        if (what != 1) {
            int apiKey =
                    gen.chance(0.8) ? API_KEYS[gen.ints(0, API_KEYS.length - 1)] : gen.oneOf(-1, 0x7FFF, 0x8000, 1000);
            frame = FrameMutation.apiKey(apiKey).apply(frame);
        }
        if (what != 0) {
            int version = gen.chance(0.8) ? gen.ints(0, 20) : gen.oneOf(-1, 0x7FFF, 0x8000, 0xFFFF);
            frame = FrameMutation.apiVersion(version).apply(frame);
        }
        return frame;
    }

    /** More than {@code actual}, log-uniformly up to the most claimed. */
    private int longClaim(int actual) {
        double low = Math.log(actual + 1.0);
        double high = Math.log(Math.max(actual + 2.0, maxClaimedBytes));
        return (int) Math.min(maxClaimedBytes, Math.max(actual + 1, Math.exp(low + gen.unit() * (high - low))));
    }

    private static WireFrame honest(Kind kind, byte[] frame) {
        return new WireFrame(kind, withSize(frame), false);
    }

    private static byte[] withSize(byte[] frame) {
        return withSize(frame.length, frame);
    }

    private static byte[] withSize(int claimed, byte[] bytes) {
        return ByteBuffer.allocate(4 + bytes.length).putInt(claimed).put(bytes).array();
    }
}
