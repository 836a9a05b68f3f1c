package io.orderflow.broker.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * What the broker keeps of one user's password for one SCRAM mechanism (RFC 5802 section 3): the salt, the
 * iteration count, {@code StoredKey = H(HMAC(SaltedPassword, "Client Key"))} and {@code ServerKey =
 * HMAC(SaltedPassword, "Server Key")}. Neither the password nor the salted password is kept: StoredKey verifies a
 * client's proof without being enough to produce one.
 */
public record ScramCredential(
        ScramMechanism mechanism, byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {
    private static final byte[] CLIENT_KEY = "Client Key".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SERVER_KEY = "Server Key".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The credential for a salted password, as AlterUserScramCredentials carries it. */
    public static ScramCredential fromSaltedPassword(
            ScramMechanism mechanism, byte[] salt, int iterations, byte[] saltedPassword) {
        byte[] clientKey = mechanism.hmac(saltedPassword, CLIENT_KEY);
        return new ScramCredential(
                mechanism,
                salt.clone(),
                iterations,
                mechanism.hash(clientKey),
                mechanism.hmac(saltedPassword, SERVER_KEY));
    }

    /** The credential for a password, with a fresh random salt. */
    public static ScramCredential fromPassword(ScramMechanism mechanism, char[] password, int iterations) {
        byte[] salt = new byte[32];
        RANDOM.nextBytes(salt);
        return fromSaltedPassword(mechanism, salt, iterations, mechanism.saltedPassword(password, salt, iterations));
    }

    /** Whether {@code password} is this credential's password (for SASL/PLAIN), compared in constant time. */
    public boolean matches(char[] password) {
        byte[] salted = mechanism.saltedPassword(password, salt, iterations);
        byte[] candidate = mechanism.hash(mechanism.hmac(salted, CLIENT_KEY));
        return MessageDigest.isEqual(candidate, storedKey);
    }
}
