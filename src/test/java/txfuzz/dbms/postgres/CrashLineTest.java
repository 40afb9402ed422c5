package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The line a restart prints of a dead server's log: what it said since it last became ready, not an earlier crash it survived. */
@Tag("unit")
class CrashLineTest {
    private static final String RECOVERED = """
            LOG:  client backend (PID 17782) was terminated by signal 9: Killed
            LOG:  all server processes terminated; reinitializing
            LOG:  database system is ready to accept connections
            """;

    @Test
    void aKilledPostmasterSaysNothingOfItsOwnDeathSoTheLastLineIsShown() {
        assertEquals("FATAL:  terminating connection due to unexpected postmaster exit",
                EmbeddedServer.crashLine(RECOVERED + "FATAL:  terminating connection due to unexpected postmaster exit\n"));
    }

    @Test
    void aCrashSinceTheLastStartIsShownByItsTellingLines() {
        assertEquals("TRAP: failed Assert(\"x\"), File: \"heapam.c\" | LOG:  server process (PID 9) was terminated by signal 6: Aborted",
                EmbeddedServer.crashLine(RECOVERED + "TRAP: failed Assert(\"x\"), File: \"heapam.c\"\n"
                        + "LOG:  server process (PID 9) was terminated by signal 6: Aborted\nLOG:  shutting down\n"));
    }
}
