package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** --generator, --patterns and 'txfuzz patterns' as a user meets them. */
@Tag("unit")
class PatternOptionsTest {
    @Test
    void thePatternsCommandListsTheCatalogueWithItsLevels() {
        CliTest.Result r = CliTest.run("patterns");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("| lost-update | `R1[x0] W2[x1] C2 W1[x2] C1` | RR SI SER |"), r.out());
        assertTrue(r.out().contains("| aptrans-2 | `W1[x1] C1 R2[x1] C2` | none (a control) |"), r.out());
        CliTest.Result si = CliTest.run("patterns", "--level", "SI");
        assertTrue(si.out().contains("| lost-update |") && !si.out().contains("| write-skew |"), si.out());
    }

    @Test
    void badGeneratorOptionsAreOneLineErrors() {
        assertOneLineError(CliTest.run("run", "--generator", "smart"), "unknown generator 'smart': random, pattern or mixed");
        assertOneLineError(CliTest.run("run", "--generator", "pattern", "--patterns", "lost-update,lost-updat"), "unknown pattern lost-updat");
        assertOneLineError(CliTest.run("run", "--patterns", "lost-update"), "--patterns chooses the patterns of --generator pattern or mixed");
        assertOneLineError(CliTest.run("run", "--generator", "pattern", "--oracle", "isolation", "--sessions", "3"),
                "pattern cases run in their pattern's order");
        assertOneLineError(CliTest.run("patterns", "--level", "XX"), "unknown isolation level 'XX'");
    }

    private static void assertOneLineError(CliTest.Result r, String expected) {
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains(expected), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    }
}
