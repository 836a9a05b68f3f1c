package io.orderflow.inventory;

import io.orderflow.contracts.order.PayloadFields;
import java.util.List;

/**
 * The reason of a rejection for want of stock, "not enough stock of sku-1, sku-2", within the contracts' length of a
 * reason ({@link PayloadFields#MAX_REASON_LENGTH}): an order may have a hundred lines of long SKUs, and a reason that
 * long would make an {@code InventoryRejected} no consumer reads. SKUs that do not fit are counted instead, "... and 37
 * more"; the event's {@code shortSkus} still names every one. Stateless.
 */
final class ShortStockReason {

    private static final String PREFIX = "not enough stock of ";

    private ShortStockReason() {}

    /** The reason naming {@code shortSkus} (at least one), in their order, as many as fit. */
    static String of(List<String> shortSkus) {
        // String lengths count UTF-16 units, never fewer than the code points the contracts count.
        String all = PREFIX + String.join(", ", shortSkus);
        if (all.length() <= PayloadFields.MAX_REASON_LENGTH) {
            return all;
        }
        StringBuilder reason = new StringBuilder(PREFIX);
        for (int i = 0; i < shortSkus.size(); i++) {
            String next = (i == 0 ? "" : ", ") + shortSkus.get(i);
            int after = shortSkus.size() - i - 1;
            if (reason.length() + next.length() + more(after).length() > PayloadFields.MAX_REASON_LENGTH) {
                return reason.append(more(shortSkus.size() - i)).toString();
            }
            reason.append(next);
        }
        return reason.toString();
    }

    private static String more(int skus) {
        return skus == 0 ? "" : " and " + skus + " more";
    }
}
