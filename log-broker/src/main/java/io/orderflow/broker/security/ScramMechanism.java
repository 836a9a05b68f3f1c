package io.orderflow.broker.security;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The SCRAM mechanisms (RFC 5802, RFC 7677) with their hash, and the functions of RFC 5802 section 3 built on the
 * JDK's own implementations: {@code Hi} is PBKDF2 with the mechanism's HMAC, {@code H} its digest. The type codes
 * are the ones AlterUserScramCredentials and DescribeUserScramCredentials use on the wire.
 */
public enum ScramMechanism {
    SCRAM_SHA_256("SCRAM-SHA-256", (byte) 1, "SHA-256", "HmacSHA256", "PBKDF2WithHmacSHA256", 256),
    SCRAM_SHA_512("SCRAM-SHA-512", (byte) 2, "SHA-512", "HmacSHA512", "PBKDF2WithHmacSHA512", 512);

    /** Kafka's bounds on the iteration count of a credential. */
    public static final int MIN_ITERATIONS = 4096;

    public static final int MAX_ITERATIONS = 16384;

    private final String saslName;
    private final byte type;
    private final String digest;
    private final String hmac;
    private final String pbkdf2;
    private final int bits;

    ScramMechanism(String saslName, byte type, String digest, String hmac, String pbkdf2, int bits) {
        this.saslName = saslName;
        this.type = type;
        this.digest = digest;
        this.hmac = hmac;
        this.pbkdf2 = pbkdf2;
        this.bits = bits;
    }

    public String saslName() {
        return saslName;
    }

    public byte type() {
        return type;
    }

    public static Optional<ScramMechanism> forSaslName(String name) {
        for (ScramMechanism m : values()) {
            if (m.saslName.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    public static Optional<ScramMechanism> forType(byte type) {
        for (ScramMechanism m : values()) {
            if (m.type == type) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** {@code Hi(password, salt, iterations)}: the salted password. */
    public byte[] saltedPassword(char[] password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, bits);
            try {
                return SecretKeyFactory.getInstance(pbkdf2).generateSecret(spec).getEncoded();
            } finally {
                spec.clearPassword();
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(pbkdf2 + " is not available in this JDK", e);
        }
    }

    public byte[] hmac(byte[] key, byte[] message) {
        try {
            Mac mac = Mac.getInstance(hmac);
            mac.init(new SecretKeySpec(key, hmac));
            return mac.doFinal(message);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(hmac + " is not available in this JDK", e);
        }
    }

    public byte[] hash(byte[] message) {
        try {
            return MessageDigest.getInstance(digest).digest(message);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(digest + " is not available in this JDK", e);
        }
    }
}
