package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.ChildJvm;

/**
 * docs/security.md: the private directory is $TXFUZZ_HOME when set, else $XDG_CACHE_HOME/txfuzz, else
 * ~/.cache/txfuzz (the user's home as Java knows it). `clean --dry-run` names it and changes nothing, so it shows which one a real txfuzz picks.
 */
class HomeLocationTest {
    @TempDir
    Path tmp;

    /** What `txfuzz clean --dry-run` prints for a user whose home is {@code user}, with these variables only. */
    private String dryRunWith(Path user, Map<String, String> vars) throws Exception {
        ProcessBuilder b = new ProcessBuilder(ChildJvm.command("-Duser.home=" + user, "txfuzz.cli.Main", "clean", "--dry-run"))
                .redirectErrorStream(true).redirectOutput(tmp.resolve("out").toFile());
        b.environment().keySet().removeAll(java.util.List.of("TXFUZZ_HOME", "XDG_CACHE_HOME"));
        b.environment().putAll(vars);
        Process p = b.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String out = Files.readString(tmp.resolve("out"));
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void theHomeIsTxfuzzHomeThenTheXdgCacheThenDotCache() throws Exception {
        Path user = Files.createDirectories(tmp.resolve("user"));
        Path xdg = Files.createDirectories(tmp.resolve("xdg"));
        Path own = tmp.resolve("own");
        assertTrue(dryRunWith(user, Map.of("XDG_CACHE_HOME", xdg.toString(), "TXFUZZ_HOME", own.toString()))
                .contains(own.toString()));
        assertTrue(dryRunWith(user, Map.of("XDG_CACHE_HOME", xdg.toString()))
                .contains(xdg.resolve("txfuzz").toString()));
        String fallback = dryRunWith(user, Map.of());
        assertTrue(fallback.contains(user.resolve(".cache/txfuzz").toString()), fallback);
    }
}
