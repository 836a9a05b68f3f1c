package io.orderflow.architecture.sample.ops.bench;

import io.orderflow.architecture.sample.ops.drill.SampleDrill;

/** Wrong on purpose: a benchmark using a drill. */
public class SampleBenchmark {
    public double median() {
        return new SampleDrill().passed() ? 1 : 0;
    }
}
