package io.orderflow.broker.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * The broker's TLS settings, named as Kafka names them ({@code ssl.keystore.*}, {@code ssl.truststore.*},
 * {@code ssl.client.auth}, {@code ssl.enabled.protocols}), turned into the JDK's {@link SSLContext}. Key and trust
 * stores are PKCS12 (or JKS) files, or PEM files: the key store a PKCS#8 private key (encrypted with
 * {@code ssl.key.password} or not) followed by its certificate chain, the trust store one or more certificates.
 *
 * @param clientAuth {@code none}, {@code requested} or {@code required}: whether a client certificate is asked
 *     for; a verified one names the connection's principal ({@code User:} and its subject)
 */
public record TlsSettings(
        Path keystore,
        String keystoreType,
        char[] keystorePassword,
        char[] keyPassword,
        Path truststore,
        String truststoreType,
        char[] truststorePassword,
        String clientAuth,
        List<String> protocols) {

    private static final Pattern PEM =
            Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----", Pattern.MULTILINE);

    public TlsSettings {
        if (!List.of("none", "requested", "required").contains(clientAuth)) {
            throw new IllegalArgumentException(
                    "ssl.client.auth=" + clientAuth + " is not one of none, requested, required");
        }
        protocols = List.copyOf(protocols);
    }

    /**
     * A new server-side engine per connection, from a context built once now.
     *
     * @throws IllegalArgumentException when a store cannot be read, naming the file and why
     */
    public Supplier<SSLEngine> serverEngines() {
        SSLContext context = context();
        String[] enabled = protocols.toArray(String[]::new);
        return () -> {
            SSLEngine engine = context.createSSLEngine();
            engine.setUseClientMode(false);
            SSLParameters parameters = engine.getSSLParameters();
            parameters.setProtocols(enabled);
            switch (clientAuth) {
                case "required" -> parameters.setNeedClientAuth(true);
                case "requested" -> parameters.setWantClientAuth(true);
                default -> parameters.setNeedClientAuth(false);
            }
            engine.setSSLParameters(parameters);
            return engine;
        };
    }

    private SSLContext context() {
        if (keystore == null) {
            throw new IllegalArgumentException("A TLS listener needs ssl.keystore.location");
        }
        try {
            KeyStore keys = load(keystore, keystoreType, keystorePassword, true);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, keyEntryPassword());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(truststore == null ? null : load(truststore, truststoreType, truststorePassword, false));
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("Cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** The password of the key entry: {@code ssl.key.password}, else the store's (as Kafka reads them). */
    private char[] keyEntryPassword() {
        return keyPassword != null ? keyPassword : keystorePassword != null ? keystorePassword : new char[0];
    }

    private KeyStore load(Path file, String type, char[] password, boolean withKey) {
        try {
            if (type.toUpperCase(Locale.ROOT).equals("PEM")) {
                return withKey ? pemKeyStore(file) : pemTrustStore(file);
            }
            KeyStore store = KeyStore.getInstance(type);
            try (InputStream in = Files.newInputStream(file)) {
                store.load(in, password);
            }
            return store;
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Cannot read the " + type + " " + (withKey ? "key" : "trust") + " store " + file + ": "
                            + e.getMessage(),
                    e);
        }
    }

    private KeyStore pemKeyStore(Path file) throws IOException, GeneralSecurityException {
        List<Certificate> chain = new ArrayList<>();
        PrivateKey key = null;
        for (var block : pemBlocks(file)) {
            switch (block.label()) {
                case "CERTIFICATE" -> chain.add(certificate(block.der()));
                case "PRIVATE KEY" -> key = privateKey(new PKCS8EncodedKeySpec(block.der()));
                case "ENCRYPTED PRIVATE KEY" -> {
                    if (keyPassword == null) {
                        throw new IllegalArgumentException(
                                "the private key is encrypted and ssl.key.password is unset");
                    }
                    EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(block.der());
                    var pbe =
                            SecretKeyFactory.getInstance(info.getAlgName()).generateSecret(new PBEKeySpec(keyPassword));
                    key = privateKey(info.getKeySpec(pbe));
                }
                default ->
                    throw new IllegalArgumentException("unexpected PEM block " + block.label()
                            + " (PKCS#8 PRIVATE KEY and CERTIFICATE blocks are read)");
            }
        }
        if (key == null || chain.isEmpty()) {
            throw new IllegalArgumentException("a PEM key store holds a PRIVATE KEY and its CERTIFICATE chain");
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("broker", key, keyEntryPassword(), chain.toArray(Certificate[]::new));
        return store;
    }

    private KeyStore pemTrustStore(Path file) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        int n = 0;
        for (var block : pemBlocks(file)) {
            if (block.label().equals("CERTIFICATE")) {
                store.setCertificateEntry("ca-" + n++, certificate(block.der()));
            }
        }
        if (n == 0) {
            throw new IllegalArgumentException("no CERTIFICATE block");
        }
        return store;
    }

    private record PemBlock(String label, byte[] der) {}

    private static List<PemBlock> pemBlocks(Path file) throws IOException {
        Matcher m = PEM.matcher(Files.readString(file, StandardCharsets.US_ASCII));
        List<PemBlock> blocks = new ArrayList<>();
        while (m.find()) {
            blocks.add(new PemBlock(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
        }
        return blocks;
    }

    private static Certificate certificate(byte[] der) throws GeneralSecurityException {
        return CertificateFactory.getInstance("X.509").generateCertificate(new java.io.ByteArrayInputStream(der));
    }

    private static PrivateKey privateKey(PKCS8EncodedKeySpec spec) throws GeneralSecurityException {
        GeneralSecurityException last = null;
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "RSASSA-PSS")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw last;
    }
}
