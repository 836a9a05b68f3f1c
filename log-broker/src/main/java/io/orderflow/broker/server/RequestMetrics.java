package io.orderflow.broker.server;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Requests handled and time spent per API, with a latency histogram in Prometheus' cumulative-bucket form.
 * Thread-safe; recording is a few uncontended adds.
 */
final class RequestMetrics {
    static final double[] BUCKETS_SECONDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5
    };

    static final class PerApi {
        final LongAdder count = new LongAdder();
        final LongAdder nanos = new LongAdder();
        final LongAdder[] buckets = new LongAdder[BUCKETS_SECONDS.length];

        PerApi() {
            for (int i = 0; i < buckets.length; i++) {
                buckets[i] = new LongAdder();
            }
        }
    }

    private final Map<ApiKeys, PerApi> perApi = new EnumMap<>(ApiKeys.class);

    RequestMetrics() {
        for (ApiKeys api : ApiKeys.values()) {
            perApi.put(api, new PerApi());
        }
    }

    void record(ApiKeys api, long nanos) {
        PerApi m = perApi.get(api);
        m.count.increment();
        m.nanos.add(nanos);
        double seconds = nanos / 1e9;
        for (int i = 0; i < BUCKETS_SECONDS.length; i++) {
            if (seconds <= BUCKETS_SECONDS[i]) {
                m.buckets[i].increment();
                break;
            }
        }
    }

    Map<ApiKeys, PerApi> perApi() {
        return perApi;
    }
}
