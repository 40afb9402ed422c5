package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The compilers named above bench's table: C1 alone (./txfuzz's way), Java's default, and this JVM's own. */
@Timeout(10)
class JitModeTest {
    @Test
    void eachCompilerSettingIsNamed() {
        assertEquals("C1 alone (-XX:TieredStopAtLevel=1, as ./txfuzz starts Java)", JitMode.describe(true, 1));
        assertEquals("C1 and C2 (Java's default; ./txfuzz starts Java with C1 alone)", JitMode.describe(true, 4));
        assertEquals("C2 alone (-XX:-TieredCompilation)", JitMode.describe(false, 4));
        assertEquals("interpreter alone (-XX:TieredStopAtLevel=0)", JitMode.describe(true, 0));
    }

    @Test
    void thisJvmsOwnSettingIsRead() {
        // the test JVMs run C1 alone (the pom's argLine): read from the JVM, it is named so
        assertTrue(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-XX:TieredStopAtLevel=1"),
                "the pom starts the tests with C1 alone");
        assertEquals(JitMode.describe(true, 1), JitMode.current());
    }
}
