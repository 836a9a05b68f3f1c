package io.orderflow.inventory;

import io.smallrye.config.ConfigSourceInterceptor;
import io.smallrye.config.ConfigSourceInterceptorContext;
import io.smallrye.config.ConfigValue;

/**
 * Derives the {@code orders} channel's commit strategy from {@code orderflow.inventory-service.outcomes}, so that one setting
 * switches the mode: in {@code kafka-transactions} mode the batch's offsets are committed in the Kafka transaction that
 * publishes its outcomes ({@link OutcomeTransactions}), and the channel must commit nothing itself ({@code ignore}, with
 * the connector's default {@code enable.auto.commit=false}). In {@code outbox} mode the channel's own
 * {@code throttled} strategy from application.properties stands. Registered in
 * {@code META-INF/services/io.smallrye.config.ConfigSourceInterceptor}.
 */
public final class OutcomeModeChannels implements ConfigSourceInterceptor {

    static final String COMMIT_STRATEGY = "mp.messaging.incoming.orders.commit-strategy";

    @Override
    public ConfigValue getValue(ConfigSourceInterceptorContext context, String name) {
        ConfigValue value = context.proceed(name);
        if (!COMMIT_STRATEGY.equals(name)) {
            return value;
        }
        ConfigValue mode = context.proceed("orderflow.inventory-service.outcomes");
        if (mode == null || !"kafka-transactions".equals(mode.getValue())) {
            return value;
        }
        return value == null
                ? ConfigValue.builder().withName(name).withValue("ignore").build()
                : value.withValue("ignore");
    }
}
