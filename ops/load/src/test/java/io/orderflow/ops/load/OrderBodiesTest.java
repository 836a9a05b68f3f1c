package io.orderflow.ops.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OrderBodiesTest {

    private final ObjectMapper json = new ObjectMapper();

    private Set<String> customers(OrderBodies bodies, int orders, int[] hot) throws Exception {
        SplittableRandom random = new SplittableRandom(7);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < orders; i++) {
            String customer =
                    json.readTree(bodies.next(random)).get("customerId").asText();
            seen.add(customer);
            if (customer.equals(OrderBodies.HOT_CUSTOMER)) {
                hot[0]++;
            }
        }
        return seen;
    }

    @Test
    void theHotCustomerPlacesItsShareOfTheOrdersAndTheRestAreSpread() throws Exception {
        int[] hot = {0};
        Set<String> seen = customers(OrderBodies.hotCustomer(0.5), 10_000, hot);

        assertThat(hot[0]).isBetween(4_800, 5_200); // 5,000 expected; sd 50
        assertThat(seen.size()).isGreaterThan(4_000);
    }

    @Test
    void fewCustomersMeansAtMostThatManyKeysAndUniformHasNoHotOne() throws Exception {
        int[] hot = {0};
        assertThat(customers(OrderBodies.fewCustomers(10), 1_000, hot)).hasSize(10);
        assertThat(customers(OrderBodies.uniform(), 1_000, hot)).hasSizeGreaterThan(990);
        assertThat(hot[0]).isZero();
    }

    @Test
    void parsesTheCommandLineFormsAndRefusesOthersNamingThem() {
        assertThat(OrderBodies.parse("uniform")).isEqualTo(OrderBodies.uniform());
        assertThat(OrderBodies.parse("hot:0.25")).isEqualTo(OrderBodies.hotCustomer(0.25));
        assertThat(OrderBodies.parse("few:3")).isEqualTo(OrderBodies.fewCustomers(3));
        for (String bad : new String[] {"hot:0", "hot:1.5", "few:0", "few:x", "skewed"}) {
            assertThatThrownBy(() -> OrderBodies.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("uniform, hot:SHARE");
        }
    }

    @Test
    void aShareOfTheOrdersAsksForTheSoldOutSkuAndEveryOtherLineForAStockedOne() throws Exception {
        ObjectMapper json = new ObjectMapper();
        SplittableRandom random = new SplittableRandom(7);
        OrderBodies bodies = OrderBodies.uniform().withOutOfStock(0.25);
        int soldOut = 0;
        for (int i = 0; i < 4_000; i++) {
            JsonNode items = json.readTree(bodies.next(random)).get("items");
            for (JsonNode line : items) {
                String sku = line.get("sku").asText();
                if (sku.equals(OrderBodies.SOLD_OUT)) {
                    soldOut++;
                } else {
                    assertThat(Integer.parseInt(sku.substring("sku-".length()))).isBetween(1, 1_000);
                }
            }
        }

        assertThat(soldOut).isBetween(850, 1_150); // 1,000 expected
        assertThatThrownBy(() -> OrderBodies.uniform().withOutOfStock(1.5))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
