package io.orderflow.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.contracts.inventory.InventoryRejected;
import io.orderflow.contracts.order.PayloadFields;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reason of a rejection for want of stock names the short SKUs and always fits the contracts' reason length. */
class ShortStockReasonTest {

    private static final String PREFIX = "not enough stock of ";

    @Test
    void namesEveryShortSkuWhenTheyFit() {
        assertThat(ShortStockReason.of(List.of("sku-1"))).isEqualTo("not enough stock of sku-1");
        assertThat(ShortStockReason.of(List.of("sku-1", "sku-7"))).isEqualTo("not enough stock of sku-1, sku-7");
    }

    @Test
    void namesAsManySkusInOrderAsFitAndCountsTheRestSoThatTheRejectionIsAValidEvent() {
        Properties.forAll(500, gen -> {
            List<String> skus = gen.list(1, 150, ShortStockReasonTest::sku);

            String reason = ShortStockReason.of(skus);

            assertThat(reason.codePointCount(0, reason.length())).isLessThanOrEqualTo(PayloadFields.MAX_REASON_LENGTH);
            assertThat(new InventoryRejected("order-1", reason, skus).reason()).isEqualTo(reason);
            String all = PREFIX + String.join(", ", skus);
            if (all.length() <= PayloadFields.MAX_REASON_LENGTH) {
                assertThat(reason).isEqualTo(all);
                return;
            }
            int named = reason.split(", ", -1).length; // no SKU drawn contains ", "
            assertThat(reason)
                    .isEqualTo(PREFIX + String.join(", ", skus.subList(0, named)) + " and " + (skus.size() - named)
                            + " more");
            String oneMore = PREFIX
                    + String.join(", ", skus.subList(0, named + 1))
                    + (skus.size() - named - 1 == 0 ? "" : " and " + (skus.size() - named - 1) + " more");
            assertThat(oneMore.length())
                    .as("one more SKU would not fit")
                    .isGreaterThan(PayloadFields.MAX_REASON_LENGTH);
        });
    }

    /** A SKU of 1 to 100 letters and digits, now and then with a character of two UTF-16 units. */
    private static String sku(Gen gen) {
        String sku = gen.alphanumeric(1, 100);
        return gen.chance(0.2) ? "\uD83D\uDCE6" + sku.substring(1) : sku;
    }
}
