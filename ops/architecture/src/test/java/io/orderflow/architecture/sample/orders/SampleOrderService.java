package io.orderflow.architecture.sample.orders;

import io.orderflow.architecture.sample.broker.SampleLog;
import io.orderflow.architecture.sample.contracts.SampleCodec;
import io.orderflow.architecture.sample.inventory.SampleStock;

/** Wrong on purpose: a service that calls the broker's storage and another service's code. */
public class SampleOrderService {
    public int place(SampleLog log, SampleStock stock, SampleCodec codec) {
        return log.append(codec.encode(this)) + stock.reserve();
    }
}
