package txfuzz.dbms.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** docs/security.md: a server's password is 144 random bits, a new one for every start. */
@Tag("unit")
class SecretsTest {

    @Test
    void aPasswordIs144BitsInUrlSafeCharactersAndNeverRepeats() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String p = Secrets.password();
            assertTrue(p.matches("[A-Za-z0-9_-]{24}"), p);
            assertEquals(18, Base64.getUrlDecoder().decode(p).length, p);
            assertTrue(seen.add(p), "repeated: " + p);
        }
    }
}
