package io.orderflow.relay;

/**
 * What one publishing cycle did.
 *
 * @param published rows acknowledged and marked published
 * @param quarantined rows set aside for good
 * @param heldBehindHorizon committed rows are waiting for an older transaction to end; look again soon
 * @param brokerUnavailable some rows could not be sent or were not answered; back off and retry them
 * @param moreReady the batch was full and fully handled: more rows may be ready right away
 */
public record CycleResult(
        int published, int quarantined, boolean heldBehindHorizon, boolean brokerUnavailable, boolean moreReady) {

    static final CycleResult IDLE = new CycleResult(0, 0, false, false, false);
}
