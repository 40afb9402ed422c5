package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The compilers named above bench's table: C1 alone (./txfuzz's way), Java's default, and this JVM's own. */
@Timeout(10)
class JitModeTest {
    @Test
    void eachCompilerSettingIsNamed() {
        assertEquals("C1 alone (-XX:TieredStopAtLevel=1, as ./txfuzz starts campaigns)", JitMode.describe(true, 1));
        assertEquals("C1 and C2 (Java's default, as ./txfuzz starts check and bench --checker; campaigns run C1 alone)",
                JitMode.describe(true, 4));
        assertEquals("C2 alone (-XX:-TieredCompilation)", JitMode.describe(false, 4));
        assertEquals("interpreter alone (-XX:TieredStopAtLevel=0)", JitMode.describe(true, 0));
    }

    @Test
    void thisJvmsOwnSettingIsRead() {
        // what the command line asked for (the pom's argLine asks for C1 alone; an IDE may ask for nothing), read from the JVM
        boolean tiered = true;
        int level = 4;
        for (String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.equals("-XX:-TieredCompilation")) {
                tiered = false;
            } else if (arg.startsWith("-XX:TieredStopAtLevel=")) {
                level = Integer.parseInt(arg.substring(arg.indexOf('=') + 1));
            }
        }
        assertEquals(JitMode.describe(tiered, level), JitMode.current());
    }
}
