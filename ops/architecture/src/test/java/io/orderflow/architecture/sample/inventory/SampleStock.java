package io.orderflow.architecture.sample.inventory;

public class SampleStock {
    public int reserve() {
        return 1;
    }
}
