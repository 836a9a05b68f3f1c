package io.orderflow.architecture.sample.ops.load;

import io.orderflow.architecture.sample.ops.bench.SampleBenchmark;

/** Wrong on purpose: the load toolkit using a benchmark. */
public class SampleLoad {
    public double rate(SampleBenchmark benchmark) {
        return benchmark.median();
    }
}
