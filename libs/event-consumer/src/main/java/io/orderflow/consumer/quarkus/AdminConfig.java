package io.orderflow.consumer.quarkus;

import io.smallrye.config.ConfigMapping;
import java.util.Optional;

/**
 * The admin endpoints' setting, {@code orderflow.admin.*} (environment: {@code ORDERFLOW_ADMIN_*}), shared by every
 * service whose resources carry {@link AdminOperation}. docs/configuration.md lists it and {@code ConfigurationDocsTest}
 * keeps the two in step.
 */
@ConfigMapping(prefix = "orderflow.admin")
public interface AdminConfig {

    /**
     * The bearer token an admin request must carry. No default, on purpose: unset or blank, the admin endpoints answer
     * 403 rather than run open. On the laptop platform it is the file {@code .orderflow/secrets/admin-token}.
     */
    Optional<String> token();
}
