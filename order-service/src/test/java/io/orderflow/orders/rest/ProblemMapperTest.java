package io.orderflow.orders.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import org.hibernate.exception.JDBCConnectionException;
import org.junit.jupiter.api.Test;

/**
 * The error table's rows for PostgreSQL's failures, which the API tests cannot provoke on a shared server: a database
 * that cannot be reached is a 503 to retry, a lost race a 409, anything else a 500.
 */
class ProblemMapperTest {

    private final ObjectMapper json = new ObjectMapper();
    private final ProblemMapper mapper = new ProblemMapper(json);

    @Test
    void aConnectionThatBrokeMidRequestIsA503ToRetryNotAnInternalError() throws Exception {
        // as order-service met a PostgreSQL killed with SIGKILL in the chaos run: Hibernate's wrapper of the driver's
        // "An I/O error occurred while sending to the backend." (SQLSTATE 08006)
        Exception broken = new JDBCConnectionException(
                "JDBC exception executing SQL [An I/O error occurred while sending to the backend.]",
                new SQLException("An I/O error occurred while sending to the backend.", "08006"));

        Response answer = mapper.unexpected(broken, null);

        assertThat(answer.getStatus()).isEqualTo(503);
        assertThat(answer.getHeaderString("Retry-After")).isEqualTo("1");
        assertThat(answer.getMediaType().toString()).isEqualTo("application/problem+json");
        JsonNode problem = json.readTree((String) answer.getEntity());
        assertThat(problem.path("type").asText()).isEqualTo("urn:orderflow:problem:database-unavailable");
        assertThat(problem.path("detail").asText())
                .contains("retry", "Idempotency-Key", "An I/O error occurred while sending to the backend.");
    }

    @Test
    void aRefusedConnectionAndAServerShuttingDownOrStartingAre503s() {
        for (String state : new String[] {"08001", "08004", "57P01", "57P02", "57P03", "53300"}) {
            Response answer =
                    mapper.unexpected(new IllegalStateException(new SQLException("unavailable", state)), null);

            assertThat(answer.getStatus()).as(state).isEqualTo(503);
        }
    }

    @Test
    void aLostRaceIsStillA409AndAnyOtherSqlErrorA500() throws Exception {
        Response conflict = mapper.unexpected(new RuntimeException(new SQLException("serialization", "40001")), null);
        Response bug = mapper.unexpected(new RuntimeException(new SQLException("no such table", "42P01")), null);
        Response noState = mapper.unexpected(new RuntimeException(new SQLException("no state")), null);

        assertThat(conflict.getStatus()).isEqualTo(409);
        assertThat(bug.getStatus()).isEqualTo(500);
        assertThat(noState.getStatus()).isEqualTo(500);
        assertThat(json.readTree((String) bug.getEntity()).path("type").asText())
                .isEqualTo("urn:orderflow:problem:internal-error");
    }
}
