package io.orderflow.orders.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.orders.domain.NewOrder;
import io.orderflow.orders.domain.Order;
import io.orderflow.orders.service.OrderEvents;
import io.orderflow.orders.service.RequestFingerprint;
import io.orderflow.property.Properties;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import java.time.Instant;
import java.util.Random;
import java.util.UUID;
import org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator;
import org.junit.jupiter.api.Test;

/**
 * The input side of "never a 500", in process and fast: for any JSON-ish body, the API's binding ({@link RestJson})
 * and validation either refuse it (which the problem table answers with 400), or accept a request that makes a valid
 * OrderCreated of the event contracts. So no accepted request can fail later on a contracts rule (say, a total with
 * too many digits). {@code MalformedBodiesTest} checks the same bodies end to end over HTTP.
 */
class CreateOrderBindingPropertiesTest {

    private static final ObjectMapper JSON = restJson();
    private static final Validator VALIDATOR = Validation.byDefaultProvider()
            .configure()
            .messageInterpolator(new ParameterMessageInterpolator())
            .buildValidatorFactory()
            .getValidator();
    private static final EventCodec CODEC = new EventCodec();

    @Test
    void anyBodyIsRefusedAsBadInputOrMakesAValidOrderCreated() {
        Properties.forAll(3000, gen -> {
            long seed = gen.anyLong();
            String body = JsonishBodies.generate(new Random(seed));
            CreateOrderRequest request;
            try {
                request = JSON.readValue(body, CreateOrderRequest.class);
            } catch (JsonProcessingException refused) {
                return;
            }
            if (request == null || !VALIDATOR.validate(request).isEmpty()) {
                return;
            }

            NewOrder order = request.toNewOrder();
            Instant now = Instant.now();
            Order created = Order.created(UUID.randomUUID(), order, now);
            OrderCreated event = OrderEvents.created(created);
            EventEnvelope envelope = CODEC.wrap(event, UUID.randomUUID(), now, "order-service", null);

            assertThat(CODEC.decodePayload(CODEC.decode(CODEC.encode(envelope))))
                    .isEqualTo(event);
            assertThat(RequestFingerprint.of(order)).hasSize(64);
        });
    }

    private static ObjectMapper restJson() {
        ObjectMapper mapper = new ObjectMapper();
        new RestJson().customize(mapper);
        return mapper;
    }
}
