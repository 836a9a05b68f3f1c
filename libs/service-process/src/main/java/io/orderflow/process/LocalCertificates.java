package io.orderflow.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A local certificate authority and the certificates a laptop platform or a test needs, made by the JDK's own
 * {@code keytool} (no crypto of ours, no extra library): a CA, a broker key pair whose certificate the CA signed for
 * {@code localhost} and {@code 127.0.0.1} (and any other names given), and a client key pair it signed too, for
 * client-certificate logins. Written into one directory, readable by its owner only:
 *
 * <ul>
 *   <li>{@code broker.p12}: the broker's key and chain (PKCS12), {@code broker.pem}: the same as PKCS#8 key and
 *       certificates (for Kafka's {@code ssl.keystore.type=PEM});
 *   <li>{@code client.p12}: the client's key and chain;
 *   <li>{@code truststore.p12} and {@code ca.pem}: the CA's certificate, what clients (and the broker, for client
 *       certificates) trust;
 *   <li>{@code store-password}: the stores' password, random.
 * </ul>
 *
 * {@link #open} makes them the first time and reads them afterwards, so rotating means deleting the directory (or
 * the files) and starting again. Thread-safe: immutable once made.
 */
public record LocalCertificates(Path dir, String password) {
    public static final String CLIENT_DN = "CN=orderflow-client,O=orderflow";
    private static final Duration KEYTOOL_TIMEOUT = Duration.ofSeconds(60);

    public Path brokerKeystore() {
        return dir.resolve("broker.p12");
    }

    public Path brokerPem() {
        return dir.resolve("broker.pem");
    }

    public Path clientKeystore() {
        return dir.resolve("client.p12");
    }

    public Path truststore() {
        return dir.resolve("truststore.p12");
    }

    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /**
     * The certificates in {@code dir}, made now if {@code ca.pem} is not there yet.
     *
     * @param extraNames more DNS names for the broker's certificate besides {@code localhost} (e.g. {@code broker}
     *     for a compose network)
     */
    public static LocalCertificates open(Path dir, List<String> extraNames) throws IOException {
        Path passwordFile = dir.resolve("store-password");
        if (Files.isRegularFile(dir.resolve("ca.pem")) && Files.isRegularFile(passwordFile)) {
            return new LocalCertificates(dir, Files.readString(passwordFile).trim());
        }
        DurableFiles.createDirectories(dir);
        ownerOnly(dir, "rwx------");
        DurableFiles.fsync(dir.toAbsolutePath().getParent());
        byte[] random = new byte[18];
        new SecureRandom().nextBytes(random);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        LocalCertificates made = new LocalCertificates(dir, password);
        try {
            made.make(extraNames);
        } catch (GeneralSecurityException e) {
            throw new IOException("Cannot make the certificates in " + dir + ": " + e.getMessage(), e);
        }
        // Every file durable before the password file, written last and durably: its presence says the rest is there.
        List<Path> secret =
                List.of(made.brokerKeystore(), made.brokerPem(), made.clientKeystore(), dir.resolve("ca.p12"));
        for (Path file : secret) {
            ownerOnly(file, "rw-------");
            DurableFiles.fsync(file);
        }
        DurableFiles.fsync(made.caPem());
        DurableFiles.fsync(made.truststore());
        DurableFiles.writeOwnerOnly(passwordFile, (password + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return made;
    }

    private void make(List<String> extraNames) throws IOException, GeneralSecurityException {
        Path ca = dir.resolve("ca.p12");
        keytool(
                "-genkeypair",
                "-alias",
                "ca",
                "-dname",
                "CN=orderflow-local-ca,O=orderflow",
                "-ext",
                "bc:c",
                "-keystore",
                ca.toString());
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", caPem().toString());
        StringBuilder san = new StringBuilder("SAN=dns:localhost,ip:127.0.0.1");
        extraNames.forEach(name -> san.append(",dns:").append(name));
        signed("broker", "CN=localhost,O=orderflow", san.toString(), brokerKeystore(), ca);
        signed("client", CLIENT_DN, null, clientKeystore(), ca);

        KeyStore caStore = load(ca);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("orderflow-local-ca", caStore.getCertificate("ca"));
        try (OutputStream out = Files.newOutputStream(truststore())) {
            trust.store(out, password.toCharArray());
        }
        KeyStore broker = load(brokerKeystore());
        StringBuilder pem = new StringBuilder(
                pem("PRIVATE KEY", ((PrivateKey) broker.getKey("broker", password.toCharArray())).getEncoded()));
        for (Certificate c : broker.getCertificateChain("broker")) {
            pem.append(pem("CERTIFICATE", c.getEncoded()));
        }
        Files.writeString(brokerPem(), pem);
    }

    /** A key pair in {@code store} whose certificate the CA in {@code ca} signed, with the chain imported. */
    private void signed(String alias, String dn, String san, Path store, Path ca) throws IOException {
        keytool("-genkeypair", "-alias", alias, "-dname", dn, "-keystore", store.toString());
        Path request = dir.resolve(alias + ".csr");
        Path certificate = dir.resolve(alias + ".crt");
        keytool("-certreq", "-alias", alias, "-keystore", store.toString(), "-file", request.toString());
        List<String> sign = new ArrayList<>(List.of(
                "-gencert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                ca.toString(),
                "-infile",
                request.toString(),
                "-outfile",
                certificate.toString()));
        if (san != null) {
            sign.addAll(List.of("-ext", san));
        }
        keytool(sign.toArray(String[]::new));
        keytool("-importcert", "-noprompt", "-alias", "ca", "-keystore", store.toString(), "-file", caPem().toString());
        keytool("-importcert", "-alias", alias, "-keystore", store.toString(), "-file", certificate.toString());
        Files.delete(request);
        Files.delete(certificate);
    }

    private void keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(ChildProcesses.java()).resolveSibling("keytool").toString());
        command.add("-J-XX:TieredStopAtLevel=1");
        command.add("-J-Xshare:auto");
        command.addAll(List.of(args));
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", password, "-keypass", password));
        if (args[0].equals("-genkeypair")) {
            command.addAll(List.of("-keyalg", "EC", "-groupname", "secp256r1", "-validity", "825"));
        }
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!process.waitFor(KEYTOOL_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IOException("keytool " + args[0] + " failed: " + output.replace(password, "(password)"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while keytool ran", e);
        }
    }

    private KeyStore load(Path file) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password.toCharArray());
        }
        return store;
    }

    /** A client socket factory that trusts this CA: for start-up probes and tests. */
    public SSLSocketFactory clientSockets() throws IOException {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(load(truststore()));
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IOException("Cannot read " + truststore() + ": " + e.getMessage(), e);
        }
    }

    /** The broker settings of a TLS listener with this broker key store and, for client certificates, trust store. */
    public List<String> brokerSettings() {
        return List.of(
                "ssl.keystore.location=" + brokerKeystore(),
                "ssl.keystore.password=" + password,
                "ssl.truststore.location=" + truststore(),
                "ssl.truststore.password=" + password);
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    private static void ownerOnly(Path path, String permissions) throws IOException {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system (Windows): the directory's own ACLs apply
        }
    }
}
