package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

class LaunchOptionsTest {

    @Test
    void defaultsToEmbeddedPartsUnderTheWorkingDirectoryAndTheKafkaPorts() {
        LaunchOptions options = LaunchOptions.parse();

        assertThat(options.help()).isFalse();
        assertThat(options.postgresDirectory()).isEqualTo(Path.of(".orderflow", "postgres"));
        assertThat(options.postgresPort()).isZero();
        assertThat(options.brokerDirectory()).isEqualTo(Path.of(".orderflow", "broker"));
        assertThat(options.brokerPort()).isEqualTo(9092);
        assertThat(options.metricsPort()).isEqualTo(9404);
    }

    @Test
    void acceptsOptionsWithSeparateOrInlineValues() {
        LaunchOptions expected = new LaunchOptions(
                false,
                Path.of("/var/tmp/pg"),
                15432,
                Path.of("/var/tmp/log"),
                19092,
                0,
                true,
                LaunchOptions.DEFAULT_APPLICATIONS,
                true,
                true,
                true,
                18080,
                18081,
                18082,
                LaunchOptions.Tracing.OFF,
                null,
                LaunchOptions.Security.SASL_SSL,
                null,
                null);

        assertThat(LaunchOptions.parse(
                        "--postgres-dir", "/var/tmp/pg",
                        "--postgres-port", "15432",
                        "--broker-dir", "/var/tmp/log",
                        "--broker-port", "19092",
                        "--metrics-port", "0",
                        "--order-service-port", "18080",
                        "--relay-port", "18081",
                        "--consumer-ports-from", "18082"))
                .isEqualTo(expected);
        assertThat(LaunchOptions.parse(
                        "--postgres-dir=/var/tmp/pg",
                        "--postgres-port=15432",
                        "--broker-dir=/var/tmp/log",
                        "--broker-port=19092",
                        "--metrics-port=0",
                        "--order-service-port=18080",
                        "--relay-port=18081",
                        "--consumer-ports-from=18082"))
                .isEqualTo(expected);
    }

    @Test
    void startsTheServicesOnTheirDefaultPortsUnlessToldNotTo() {
        LaunchOptions defaults = LaunchOptions.parse();
        assertThat(defaults.services()).isTrue();
        assertThat(defaults.orderServicePort()).isEqualTo(8080);
        assertThat(defaults.relayPort()).isEqualTo(8081);
        assertThat(LaunchOptions.parse("--no-services").services()).isFalse();
    }

    @Test
    void theServicesStartFromTheirCachesWithC1AndWarmUpsUnlessToldNotTo() {
        LaunchOptions defaults = LaunchOptions.parse();
        assertThat(defaults.aotCaches()).isTrue();
        assertThat(defaults.quickJit()).isTrue();
        assertThat(defaults.warmUps()).isTrue();
        assertThat(LaunchOptions.parse("--no-aot-cache").aotCaches()).isFalse();
        assertThat(LaunchOptions.parse("--full-jit").quickJit()).isFalse();
        assertThat(LaunchOptions.parse("--no-warm-up").warmUps()).isFalse();
    }

    @Test
    void theBrokerIsSaslSslUnlessToldPlaintextAndCommandConfigNeedsAKafkaCluster() {
        assertThat(LaunchOptions.parse().security()).isEqualTo(LaunchOptions.Security.SASL_SSL);
        assertThat(LaunchOptions.parse("--security", "plaintext").security())
                .isEqualTo(LaunchOptions.Security.PLAINTEXT);
        assertThat(LaunchOptions.parse("--bootstrap-servers", "kafka:9093", "--command-config", "/etc/admin.properties")
                        .kafkaCommandConfig())
                .isEqualTo(Path.of("/etc/admin.properties"));
        assertThatThrownBy(() -> LaunchOptions.parse("--security", "ssl"))
                .hasMessageContaining("'ssl' is not sasl_ssl or plaintext");
        assertThatThrownBy(() -> LaunchOptions.parse("--command-config", "/etc/admin.properties"))
                .hasMessageContaining("'--command-config' configures the clients of a Kafka cluster");
    }

    @Test
    void mailsGoToTheLaunchersOwnSmtpServerUnlessOneIsNamed() {
        assertThat(LaunchOptions.parse().smtpServer()).isNull();
        assertThat(LaunchOptions.parse("--smtp-server", "mail.example.com:1025").smtpServer())
                .isEqualTo("mail.example.com:1025");
        assertThatThrownBy(() -> LaunchOptions.parse("--smtp-server", "mail.example.com"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("takes HOST:PORT (e.g. localhost:1025), was 'mail.example.com'");
        assertThatThrownBy(() -> LaunchOptions.parse("--smtp-server", "localhost:70000"))
                .hasMessageContaining("was 'localhost:70000'");
    }

    @Test
    void refusesAServicePortThatAnotherPartUses() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LaunchOptions.parse("--order-service-port", "9092"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("--order-service-port");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LaunchOptions.parse("--relay-port", "8080"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("--relay-port");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LaunchOptions.parse("--order-service-port", "8084"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("--consumer-ports-from (8082 to 8086)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LaunchOptions.parse("--consumer-ports-from", "9090"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("--consumer-ports-from");
    }

    @Test
    void acceptsPortZeroForAnyFreePort() {
        LaunchOptions options =
                LaunchOptions.parse("--broker-port", "0", "--metrics-port", "0", "--postgres-port", "0");

        assertThat(options.brokerPort()).isZero();
        assertThat(options.metricsPort()).isZero();
        assertThat(options.postgresPort()).isZero();
    }

    @Test
    void recognisesHelp() {
        assertThat(LaunchOptions.parse("--help").help()).isTrue();
        assertThat(LaunchOptions.parse("-h").help()).isTrue();
        assertThat(PlatformCommandLine.commandLine().getUsageMessage())
                .contains(
                        "--broker-dir",
                        "--broker-port",
                        "--metrics-port",
                        "--postgres-dir",
                        "--postgres-port",
                        "ORDERFLOW_POSTGRES_URL",
                        "LOG_FORMAT=json");
    }

    @Test
    void rejectsUnknownArgumentsNamingThem() {
        assertThatThrownBy(() -> LaunchOptions.parse("--broker"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--broker'");
    }

    @Test
    void rejectsMissingAndInvalidValuesNamingTheOption() {
        assertThatThrownBy(() -> LaunchOptions.parse("--postgres-dir"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("Missing required parameter for option '--postgres-dir'");
        assertThatThrownBy(() -> LaunchOptions.parse("--broker-dir="))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--broker-dir': needs a directory, got ''");
        assertThatThrownBy(() -> LaunchOptions.parse("--postgres-port", "70000"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--postgres-port': '70000' is not a port");
        assertThatThrownBy(() -> LaunchOptions.parse("--postgres-port=five"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("five");
        assertThatThrownBy(() -> LaunchOptions.parse("--broker-port", "-1"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--broker-port': '-1' is not a port");
        assertThatThrownBy(() -> LaunchOptions.parse("--metrics-port=65536"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--metrics-port': '65536' is not a port");
    }

    @Test
    void rejectsTwoPartsOnTheSamePort() {
        assertThatThrownBy(() -> LaunchOptions.parse("--metrics-port", "9092"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--broker-port' and '--metrics-port' are both 9092");
        assertThatThrownBy(() -> LaunchOptions.parse("--postgres-port", "9404"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--metrics-port' and '--postgres-port' are both 9404");
    }

    @Test
    void tracingIsOffUnlessAnOtlpEndpointIsGivenAndItsProtocolDefaultsToGrpc() {
        assertThat(LaunchOptions.parse().tracing().on()).isFalse();
        assertThat(LaunchOptions.parse("--otlp-endpoint", "http://localhost:4317")
                        .tracing())
                .isEqualTo(new LaunchOptions.Tracing(java.net.URI.create("http://localhost:4317"), "grpc"));
        assertThat(LaunchOptions.parse(
                                "--otlp-endpoint=http://collector:4318/v1/traces", "--otlp-protocol=http/protobuf")
                        .tracing())
                .isEqualTo(new LaunchOptions.Tracing(
                        java.net.URI.create("http://collector:4318/v1/traces"), "http/protobuf"));
        assertThat(PlatformCommandLine.commandLine().getUsageMessage()).contains("--otlp-endpoint", "--otlp-protocol");
    }

    @Test
    void refusesAnOtlpEndpointThatIsNotAnHttpUrlAndAnUnknownProtocol() {
        assertThatThrownBy(() -> LaunchOptions.parse("--otlp-endpoint", "localhost:4317"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--otlp-endpoint': 'localhost:4317'");
        assertThatThrownBy(() -> LaunchOptions.parse("--otlp-endpoint", "http://"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("http or https URL");
        assertThatThrownBy(() -> LaunchOptions.parse("--otlp-protocol", "http/json"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("grpc or http/protobuf");
    }

    @Test
    void bootstrapServersPutThePlatformOnAnotherKafkaAndABadListIsRefused() {
        LaunchOptions options = LaunchOptions.parse("--bootstrap-servers", "kafka-1:9092,kafka-2:9092");

        assertThat(options.kafkaBootstrapServers()).isEqualTo("kafka-1:9092,kafka-2:9092");
        assertThat(options.externalKafka()).isTrue();
        assertThat(LaunchOptions.parse().externalKafka()).isFalse();
        assertThatThrownBy(() -> LaunchOptions.parse("--bootstrap-servers=kafka-1"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("HOST:PORT");
    }
}
