package io.orderflow.contracts.order;

import io.orderflow.property.Gen;
import java.math.BigDecimal;

/** Valid order payloads drawn from a {@link Gen}, shared by the property tests of this module. */
public final class OrderEventSamples {

    /** Printable ASCII and some non-ASCII letters, each character equally likely. */
    private static final String TEXT_ALPHABET = printableAscii() + "äöüßéñ€中文";

    private static final String UPPER_CASE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

    private OrderEventSamples() {}

    /** Non-blank text, mostly printable ASCII with some non-ASCII letters, as ids and names may contain. */
    public static String text(Gen gen) {
        String text;
        do {
            text = gen.string(1, 24, TEXT_ALPHABET);
        } while (text.isBlank());
        return text;
    }

    /** {@link #text}, or null three times in ten. */
    public static String textOrNull(Gen gen) {
        return gen.chance(0.3) ? null : text(gen);
    }

    /** 0 to 1,000,000 with 2 decimals, 0 to 1,000 with 3, or 0 to 10^12 with none; each bound drawn often. */
    public static BigDecimal amount(Gen gen) {
        return gen.oneOfGenerators(
                g -> g.decimal(0, 100_000_000L, 2),
                g -> g.decimal(0, 1_000_000L, 3),
                g -> g.decimal(0, 1_000_000_000_000L, 0));
    }

    public static String currency(Gen gen) {
        return gen.string(3, 3, UPPER_CASE);
    }

    public static OrderLine orderLine(Gen gen) {
        return new OrderLine(text(gen), gen.ints(1, 10_000), amount(gen));
    }

    public static OrderCreated orderCreated(Gen gen) {
        return new OrderCreated(
                text(gen),
                text(gen),
                currency(gen),
                gen.list(1, 5, OrderEventSamples::orderLine),
                amount(gen),
                textOrNull(gen));
    }

    public static OrderPaid orderPaid(Gen gen) {
        return new OrderPaid(text(gen), amount(gen), currency(gen), textOrNull(gen));
    }

    public static OrderShipped orderShipped(Gen gen) {
        return new OrderShipped(text(gen), textOrNull(gen), textOrNull(gen));
    }

    public static OrderCancelled orderCancelled(Gen gen) {
        return new OrderCancelled(text(gen), text(gen));
    }

    public static OrderConfirmed orderConfirmed(Gen gen) {
        return new OrderConfirmed(text(gen));
    }

    public static OrderRejected orderRejected(Gen gen) {
        return new OrderRejected(text(gen), text(gen), gen.list(0, 3, OrderEventSamples::text));
    }

    /** Any event of the current catalogue, each type equally likely. */
    public static OrderEvent orderEvent(Gen gen) {
        return gen.oneOfGenerators(
                OrderEventSamples::orderCreated,
                OrderEventSamples::orderPaid,
                OrderEventSamples::orderShipped,
                OrderEventSamples::orderCancelled,
                OrderEventSamples::orderConfirmed,
                OrderEventSamples::orderRejected);
    }

    private static String printableAscii() {
        StringBuilder chars = new StringBuilder();
        for (char c = ' '; c <= '~'; c++) {
            chars.append(c);
        }
        return chars.toString();
    }
}
