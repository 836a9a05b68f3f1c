package io.orderflow.architecture.sample.ops.drill;

public class SampleDrill {
    public boolean passed() {
        return true;
    }
}
