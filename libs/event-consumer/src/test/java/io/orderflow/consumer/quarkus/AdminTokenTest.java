package io.orderflow.consumer.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What {@link AdminTokenFilter} answers an admin request, for each token configured and header presented. */
class AdminTokenTest {

    private static final String OPERATION = "PUT /inventory/sku-1";
    private static final String SECRET = "s3cret-admin-token";
    private final AdminToken configured = new AdminToken(Optional.of(SECRET));

    @Test
    void admitsTheConfiguredBearerTokenWhateverTheSchemesCase() {
        assertThat(configured.refusal(OPERATION, "Bearer " + SECRET)).isEmpty();
        assertThat(configured.refusal(OPERATION, "bearer " + SECRET)).isEmpty();
        assertThat(configured.refusal(OPERATION, "BEARER  " + SECRET + " ")).isEmpty();
    }

    @Test
    void withNoTokenConfiguredEveryRequestIsForbiddenNamingTheKey() {
        for (var token : new AdminToken[] {
            new AdminToken(Optional.empty()), new AdminToken(Optional.of("")), new AdminToken(Optional.of("  "))
        }) {
            for (String header : new String[] {null, "Bearer ", "Bearer " + SECRET, "Bearer  "}) {
                var refusal = token.refusal(OPERATION, header).orElseThrow();
                assertThat(refusal.status()).isEqualTo(403);
                assertThat(refusal.challenge()).isEmpty();
                assertThat(refusal.body())
                        .containsEntry("status", 403)
                        .containsEntry("type", "about:blank")
                        .containsEntry("title", "Admin endpoints are off");
                assertThat((String) refusal.body().get("detail"))
                        .contains(OPERATION)
                        .contains("off until orderflow.admin.token is set");
            }
        }
    }

    @Test
    void aMissingHeaderIsUnauthorizedWithTheChallengeAndWhereTheTokenComesFrom() {
        for (String header : new String[] {null, "", "  "}) {
            var refusal = configured.refusal(OPERATION, header).orElseThrow();
            assertThat(refusal.status()).isEqualTo(401);
            assertThat(refusal.challenge()).contains("Bearer realm=\"orderflow-admin\"");
            assertThat(refusal.body())
                    .containsEntry("status", 401)
                    .containsEntry("type", "about:blank")
                    .containsEntry("title", "Admin token required");
            assertThat((String) refusal.body().get("detail"))
                    .contains(OPERATION)
                    .contains("bearer token")
                    .contains("orderflow.admin.token")
                    .contains(".orderflow/secrets/admin-token")
                    .contains("no Authorization header");
        }
    }

    @Test
    void anotherSchemeOrAnotherTokenIsUnauthorizedAndNeitherTokenIsEchoed() {
        String[] wrong = {
            "Basic " + SECRET,
            SECRET,
            "Bearer",
            "Bearer ",
            "Bearer wrong-token",
            "Bearer " + SECRET.substring(0, SECRET.length() - 1),
            "Bearer " + SECRET + "x",
            "Bearer " + SECRET.toUpperCase(java.util.Locale.ROOT),
            "Bearer" + SECRET
        };
        for (String header : wrong) {
            var refusal = configured.refusal(OPERATION, header).orElseThrow();
            assertThat(refusal.status()).as(header).isEqualTo(401);
            assertThat(refusal.challenge()).contains(AdminToken.CHALLENGE);
            assertThat(refusal.body().toString()).doesNotContain(SECRET).doesNotContain("wrong-token");
        }
    }

    @Test
    void describesItselfWithoutTheToken() {
        assertThat(configured.toString()).isEqualTo("AdminToken[set]").doesNotContain(SECRET);
        assertThat(new AdminToken(Optional.empty()).toString()).isEqualTo("AdminToken[not set]");
    }
}
