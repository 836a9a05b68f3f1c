package io.orderflow.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One service's database: what Flyway, Quarkus ({@code quarkus.datasource.jdbc.url}, {@code .username},
 * {@code .password}) or plain JDBC need to reach it. The URL carries no credentials; they are separate fields.
 */
public record PostgresDatabase(String serviceName, String databaseName, String jdbcUrl, String user, String password) {

    /** A fresh, unpooled connection; the caller closes it. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    /** An unpooled {@link DataSource}: every {@code getConnection()} opens a new connection. */
    public DataSource dataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(jdbcUrl);
        dataSource.setUser(user);
        dataSource.setPassword(password);
        return dataSource;
    }

    /**
     * The {@code quarkus.datasource.*} settings that point a Quarkus service at this database (the password only when
     * there is one), as a launcher passes them to a service process.
     */
    public Map<String, String> quarkusDatasource() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("quarkus.datasource.jdbc.url", jdbcUrl);
        settings.put("quarkus.datasource.username", user);
        if (password != null && !password.isEmpty()) {
            settings.put("quarkus.datasource.password", password);
        }
        return settings;
    }

    @Override
    public String toString() {
        return "PostgresDatabase[serviceName=" + serviceName + ", databaseName=" + databaseName + ", jdbcUrl=" + jdbcUrl
                + ", user=" + user + ", password=" + (password.isEmpty() ? "(empty)" : "****") + "]";
    }
}
