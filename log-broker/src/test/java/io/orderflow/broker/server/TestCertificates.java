package io.orderflow.broker.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Key and trust stores for TLS tests, made by the JDK's own {@code keytool} once per test JVM: a broker key pair
 * whose self-signed certificate names {@code localhost} and {@code 127.0.0.1} (so clients' host name check
 * passes), a client key pair ({@code CN=orderflow-client}) for client-certificate logins, and the trust stores
 * that trust each. The broker's key is also written as a PEM key store (PKCS#8 key and certificate) and its
 * certificate as a PEM trust store, for the PEM settings.
 */
public record TestCertificates(
        Path brokerKeystore,
        Path brokerPemKeystore,
        Path brokerTruststore,
        Path clientKeystore,
        Path clientTruststore,
        Path clientPemTruststore,
        String password) {

    public static final String CLIENT_DN = "CN=orderflow-client,O=orderflow";
    private static TestCertificates made;

    /** The stores, made on first use in a directory of their own. */
    public static synchronized TestCertificates get() {
        if (made == null) {
            try {
                made = make(Files.createTempDirectory("orderflow-tls"));
            } catch (IOException | GeneralSecurityException | InterruptedException e) {
                throw new IllegalStateException("Cannot make the test certificates", e);
            }
        }
        return made;
    }

    private static TestCertificates make(Path dir) throws IOException, GeneralSecurityException, InterruptedException {
        String password = "test-store-secret";
        Path broker = dir.resolve("broker.p12");
        Path client = dir.resolve("client.p12");
        keytool(broker, "broker", "CN=localhost,O=orderflow", "SAN=dns:localhost,ip:127.0.0.1", password);
        keytool(client, "client", CLIENT_DN, null, password);
        KeyStore brokerStore = load(broker, password);
        KeyStore clientStore = load(client, password);
        Certificate brokerCert = brokerStore.getCertificate("broker");
        Path clientTrust = trustStore(dir.resolve("client-trust.p12"), brokerCert, password);
        Path brokerTrust = trustStore(dir.resolve("broker-trust.p12"), clientStore.getCertificate("client"), password);
        Path pemKeystore = dir.resolve("broker.pem");
        PrivateKey key = (PrivateKey) brokerStore.getKey("broker", password.toCharArray());
        Files.writeString(
                pemKeystore, pem("PRIVATE KEY", key.getEncoded()) + pem("CERTIFICATE", brokerCert.getEncoded()));
        Path pemTrust = dir.resolve("client-trust.pem");
        Files.writeString(pemTrust, pem("CERTIFICATE", brokerCert.getEncoded()));
        return new TestCertificates(broker, pemKeystore, brokerTrust, client, clientTrust, pemTrust, password);
    }

    private static void keytool(Path store, String alias, String dn, String san, String password)
            throws IOException, InterruptedException {
        Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
        List<String> command = new ArrayList<>(List.of(
                java.resolveSibling("keytool").toString(),
                "-genkeypair",
                "-alias",
                alias,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                dn,
                "-validity",
                "3650",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                password,
                "-keypass",
                password));
        if (san != null) {
            command.addAll(List.of("-ext", san));
        }
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool failed: " + output);
        }
    }

    private static KeyStore load(Path file, String password) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password.toCharArray());
        }
        return store;
    }

    private static Path trustStore(Path file, Certificate certificate, String password)
            throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("trusted", certificate);
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
        return file;
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }
}
