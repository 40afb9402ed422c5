package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The free port a start finds may be taken before mariadbd binds it (other processes start servers too: a crash restart
 * in the test suite failed so, "Aborting", and ended its campaign). The start then tries another port, and a failure it
 * cannot get past names mariadbd's own error lines, not "Aborting" alone.
 */
@Timeout(180)
class MariadbPortTakenTest {
    @Test
    void aPortTakenBeforeTheBindIsLeftForAnother() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            AtomicInteger asked = new AtomicInteger();
            EmbeddedMariadb s = EmbeddedMariadb.prepare(MariadbInstallation.binaries(null));
            try {
                s.choosingPortsWith(() -> asked.getAndIncrement() == 0 ? taken.getLocalPort() : EmbeddedMariadb.freePort());
                s.start();
                assertEquals(2, asked.get(), "the taken port, then another");
                assertNotEquals(taken.getLocalPort(), s.port());
                assertTrue(s.alive());
            } finally {
                s.stop();
            }
        }
    }

    @Test
    void aStartFailureNamesMariadbsErrorLines() {
        String words = String.join("\n", "exit value 1; its last lines:",
                "2026-11-29  5:42:02 0 [Note] Server socket created on IP: '127.0.0.1'.",
                "2026-11-29  5:42:02 0 [ERROR] Can't start server: Bind on TCP/IP port. Got error: 98: Address already in use",
                "2026-11-29  5:42:02 0 [ERROR] Do you already have another server running on port: 44841 ?",
                "2026-11-29  5:42:02 0 [ERROR] Aborting");
        String why = EmbeddedMariadb.startFailure(words);
        assertTrue(why.contains("Address already in use") && why.endsWith("[ERROR] Aborting") && !why.contains("[Note]"), why);
        assertEquals("no error line", EmbeddedMariadb.startFailure("exit value 1; its last lines:\nno error line"));
    }
}
