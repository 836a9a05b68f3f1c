package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.orderflow.broker.log.ManualClock;
import java.util.Map;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The broker's own failures are counted every time but logged once a minute per API, version and stage. */
class RequestFaultsTest {
    private final ManualClock clock = new ManualClock(1_000_000);
    private final RequestFaults faults = new RequestFaults(clock);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(RequestFaults.class);

    @BeforeEach
    void captureLog() {
        logged.start();
        logger.addAppender(logged);
    }

    @AfterEach
    void releaseLog() {
        logger.detachAppender(logged);
    }

    private static ClientInfo connection(int n) {
        return new ClientInfo("conn-" + n, "rdkafka", "/127.0.0.1:" + (40000 + n));
    }

    private static final RuntimeException BUG =
            new UnsupportedVersionException("Attempted to write a non-default leaderEpoch at version 2");

    @Test
    void aClientReconnectingInATightLoopCostsOneStackTraceThenOneLineAMinute() {
        for (int n = 0; n < 10_000; n++) {
            faults.record(RequestFaults.Stage.ENCODE, ApiKeys.LIST_OFFSETS, (short) 2, connection(n), BUG);
        }
        assertThat(logged.list).singleElement().satisfies(e -> {
            assertThat(e.getThrowableProxy()).isNotNull();
            assertThat(e.getThrowableProxy().getMessage()).contains("leaderEpoch");
            assertThat(e.getKeyValuePairs())
                    .extracting(kv -> kv.key + "=" + kv.value)
                    .contains("api=ListOffsets", "version=2", "stage=encode", "failures=1");
        });

        clock.advance(RequestFaults.LOG_INTERVAL_MS - 1);
        faults.record(RequestFaults.Stage.ENCODE, ApiKeys.LIST_OFFSETS, (short) 2, connection(1), BUG);
        assertThat(logged.list).hasSize(1);

        clock.advance(1);
        faults.record(RequestFaults.Stage.ENCODE, ApiKeys.LIST_OFFSETS, (short) 2, connection(2), BUG);
        assertThat(logged.list).hasSize(2);
        ILoggingEvent summary = logged.list.get(1);
        assertThat(summary.getThrowableProxy()).isNull();
        assertThat(summary.getKeyValuePairs())
                .extracting(kv -> kv.key + "=" + kv.value)
                .contains("failures=10001", "total=10002");

        assertThat(faults.counts())
                .containsExactly(Map.entry(
                        new RequestFaults.Key(ApiKeys.LIST_OFFSETS, (short) 2, RequestFaults.Stage.ENCODE), 10_002L));
    }

    @Test
    void eachApiVersionAndStageIsLoggedAndCountedOnItsOwn() {
        faults.record(RequestFaults.Stage.ENCODE, ApiKeys.LIST_OFFSETS, (short) 2, connection(1), BUG);
        faults.record(RequestFaults.Stage.ENCODE, ApiKeys.LIST_OFFSETS, (short) 3, connection(1), BUG);
        faults.record(RequestFaults.Stage.HANDLE, ApiKeys.LIST_OFFSETS, (short) 3, connection(1), BUG);
        faults.record(RequestFaults.Stage.HANDLE, ApiKeys.FETCH, (short) 4, connection(1), BUG);
        faults.record(RequestFaults.Stage.HANDLE, ApiKeys.FETCH, (short) 4, connection(2), BUG);

        assertThat(logged.list).hasSize(4);
        assertThat(faults.counts())
                .containsExactly(
                        Map.entry(new RequestFaults.Key(ApiKeys.FETCH, (short) 4, RequestFaults.Stage.HANDLE), 2L),
                        Map.entry(
                                new RequestFaults.Key(ApiKeys.LIST_OFFSETS, (short) 2, RequestFaults.Stage.ENCODE), 1L),
                        Map.entry(
                                new RequestFaults.Key(ApiKeys.LIST_OFFSETS, (short) 3, RequestFaults.Stage.HANDLE), 1L),
                        Map.entry(
                                new RequestFaults.Key(ApiKeys.LIST_OFFSETS, (short) 3, RequestFaults.Stage.ENCODE),
                                1L));
    }
}
