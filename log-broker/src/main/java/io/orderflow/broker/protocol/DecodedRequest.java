package io.orderflow.broker.protocol;

import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/** A request frame turned into its header and its typed body. */
public record DecodedRequest(RequestHeader header, AbstractRequest body) {}
