package io.orderflow.hostileframes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.orderflow.frames.RequestCorpus.Target;
import io.orderflow.hostileframes.WireFrame.Kind;
import io.orderflow.property.Gen;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class HostileFrameSourceTest {
    private static final int MAX_CLAIMED = 100 * 1024 * 1024;
    private static final HostileFrameSource.Corpus CORPUS =
            HostileFrameSource.Corpus.of(new Target("hostile-frames-target", Uuid.randomUuid()), "hostile-frames-new");

    @Test
    void theSameSeedDrawsTheSameFrames() {
        HostileFrameSource first = new HostileFrameSource(CORPUS, new Gen(42), MAX_CLAIMED);
        HostileFrameSource second = new HostileFrameSource(CORPUS, new Gen(42), MAX_CLAIMED);
        for (int i = 0; i < 1_000; i++) {
            WireFrame a = first.next();
            WireFrame b = second.next();
            assertThat(b.kind()).isEqualTo(a.kind());
            assertThat(b.bytes()).isEqualTo(a.bytes());
        }
    }

    @Test
    void eachKindGetsItsShareAndItsSizePrefixLiesOnlyAsItsKindSays() {
        HostileFrameSource source = new HostileFrameSource(CORPUS, new Gen(7), MAX_CLAIMED);
        Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
        int draws = 20_000;
        for (int i = 0; i < draws; i++) {
            WireFrame frame = source.next();
            counts.merge(frame.kind(), 1, Integer::sum);
            int claimed = ByteBuffer.wrap(frame.bytes()).getInt();
            int following = frame.bytes().length - 4;
            switch (frame.kind()) {
                case MUTATED, SWAPPED, SPLICED -> assertThat(claimed).isEqualTo(following);
                case SHORT_SIZE -> assertThat(claimed).isBetween(0, following - 1);
                case LONG_SIZE_THEN_HANG_UP ->
                    assertThat(claimed).isGreaterThan(following).isLessThanOrEqualTo(MAX_CLAIMED);
                // more than the first request, which the frames after it may or may not make up for
                case LONG_SIZE_THEN_MORE_FRAMES ->
                    assertThat(claimed).isPositive().isLessThanOrEqualTo(MAX_CLAIMED);
            }
            assertThat(frame.hangUp())
                    .isEqualTo(frame.kind() == Kind.LONG_SIZE_THEN_HANG_UP
                            || frame.kind() == Kind.LONG_SIZE_THEN_MORE_FRAMES);
        }
        for (Kind kind : Kind.values()) {
            assertThat(100.0 * counts.get(kind) / draws).as("%% of %s", kind).isCloseTo(kind.percent, offset(1.5));
        }
    }
}
