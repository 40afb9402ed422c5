package txfuzz.dbms.server;

import java.security.SecureRandom;
import java.util.Base64;

/** Random passwords for the servers txfuzz starts: one per server, held in memory, never printed or written to findings. */
public final class Secrets {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Secrets() {
    }

    /** 144 random bits as 24 URL-safe characters (no quote or backslash, so it can stand in SQL and config files as it is). */
    public static String password() {
        byte[] b = new byte[18];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
