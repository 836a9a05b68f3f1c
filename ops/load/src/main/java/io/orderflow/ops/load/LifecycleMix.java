package io.orderflow.ops.load;

/**
 * What happens to an accepted order, as probabilities: it is paid with probability {@code pay}; a paid order is
 * shipped with probability {@code ship}; an order not shipped is cancelled with probability {@code cancel}. The
 * defaults are {@code ops/bin/load}'s, which the whole-platform drills' orders follow too.
 */
public record LifecycleMix(double pay, double ship, double cancel) {

    public static final double PAY = 0.8;
    public static final double SHIP = 0.6;
    public static final double CANCEL = 0.2;

    /** {@code ops/bin/load}'s mix when no {@code --pay}, {@code --ship} or {@code --cancel} is given. */
    public static final LifecycleMix DEFAULT = new LifecycleMix(PAY, SHIP, CANCEL);

    public LifecycleMix {
        for (double p : new double[] {pay, ship, cancel}) {
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException(
                        "probabilities lie in [0, 1]; were " + pay + ", " + ship + ", " + cancel);
            }
        }
    }
}
