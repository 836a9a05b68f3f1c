package io.orderflow.architecture.sample.broker;

public class SampleLog {
    public int append(String record) {
        return record.length();
    }
}
