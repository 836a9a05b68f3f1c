package io.orderflow.architecture.sample.contracts;

import io.orderflow.architecture.sample.orders.SampleOrderService;

/** Wrong on purpose: a library that uses a service (and so makes a cycle with it). */
public class SampleCodec {
    public String encode(SampleOrderService service) {
        return service.toString();
    }
}
