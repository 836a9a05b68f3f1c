package io.orderflow.ops.load;

import java.util.SplittableRandom;

/**
 * The orders a load sends, as {@code POST /orders} bodies: one to three lines of the 1,000 SKUs in inventory-service's
 * starting stock, quantities 1 to 5, prices with cents, and a customer drawn from a distribution:
 *
 * <ul>
 *   <li>{@link #uniform}: one of 100,000 customers, evenly;
 *   <li>{@link #hotCustomer}: {@code customer-hot} for a share of the orders, the rest as uniform (one customer who
 *       orders far more than anyone: a hot key for whatever is keyed or grouped by customer);
 *   <li>{@link #fewCustomers}: one of {@code n} customers (a low-cardinality key).
 * </ul>
 *
 * <p>With {@link #withOutOfStock}, that share of the orders also asks for one unit of {@value #SOLD_OUT}, the SKU
 * inventory-service has none of: inventory rejects the order, and order-service with it (the saga).
 *
 * Deterministic for a seeded random; immutable and thread-safe (the random is the caller's).
 */
public record OrderBodies(String name, double hotShare, int customers, double outOfStockShare) {

    static final String HOT_CUSTOMER = "customer-hot";
    /** inventory-service's sold-out SKU (its migration V3): an order for it is rejected. */
    public static final String SOLD_OUT = "sku-sold-out";

    public OrderBodies(String name, double hotShare, int customers) {
        this(name, hotShare, customers, 0);
    }

    public static OrderBodies uniform() {
        return new OrderBodies("uniform", 0, 100_000);
    }

    /** These bodies, with {@code share} of the orders (0 to 1) asking for the sold-out SKU as well. */
    public OrderBodies withOutOfStock(double share) {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("the out-of-stock share must be in [0, 1], was " + share);
        }
        return new OrderBodies(name, hotShare, customers, share);
    }

    public static OrderBodies hotCustomer(double share) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("the hot customer's share must be in (0, 1], was " + share);
        }
        return new OrderBodies("hot customer " + Math.round(share * 100) + "%", share, 100_000);
    }

    public static OrderBodies fewCustomers(int customers) {
        if (customers < 1) {
            throw new IllegalArgumentException("there must be at least one customer, was " + customers);
        }
        return new OrderBodies(customers + " customers", 0, customers);
    }

    /**
     * Parses {@code uniform}, {@code hot:SHARE} (e.g. {@code hot:0.5}) or {@code few:N} (e.g. {@code few:10}).
     *
     * @throws IllegalArgumentException naming the accepted forms
     */
    public static OrderBodies parse(String text) {
        try {
            if (text.equals("uniform")) {
                return uniform();
            }
            if (text.startsWith("hot:")) {
                return hotCustomer(Double.parseDouble(text.substring(4)));
            }
            if (text.startsWith("few:")) {
                return fewCustomers(Integer.parseInt(text.substring(4)));
            }
        } catch (IllegalArgumentException e) { // a number that does not parse, or is out of range
            // reported below
        }
        throw new IllegalArgumentException(
                "customers must be uniform, hot:SHARE (0 < SHARE <= 1) or few:N (N >= 1), was '" + text + "'");
    }

    /** The customer of the next order. */
    String customer(SplittableRandom random) {
        if (hotShare > 0 && random.nextDouble() < hotShare) {
            return HOT_CUSTOMER;
        }
        return "customer-" + random.nextInt(customers);
    }

    /** The next order's body. */
    public String next(SplittableRandom random) {
        StringBuilder body = new StringBuilder(200)
                .append("{\"customerId\":\"")
                .append(customer(random))
                .append("\",\"currency\":\"EUR\",\"channel\":\"web\",\"items\":[");
        int lines = 1 + random.nextInt(3);
        if (outOfStockShare > 0 && random.nextDouble() < outOfStockShare) {
            body.append("{\"sku\":\"").append(SOLD_OUT).append("\",\"quantity\":1,\"unitPrice\":\"1.00\"},");
        }
        for (int line = 0; line < lines; line++) {
            if (line > 0) {
                body.append(',');
            }
            int cents = 100 + random.nextInt(99_900);
            body.append("{\"sku\":\"sku-")
                    .append(1 + random.nextInt(1_000))
                    .append("\",\"quantity\":")
                    .append(1 + random.nextInt(5))
                    .append(",\"unitPrice\":\"")
                    .append(cents / 100)
                    .append(cents % 100 < 10 ? ".0" : ".")
                    .append(cents % 100)
                    .append("\"}");
        }
        return body.append("]}").toString();
    }
}
