package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.server.ProcessesUnder;

/**
 * docs/security.md says the run's password is on no command line and in no environment: another local
 * user can read both of any process (/proc/PID/cmdline, and environ for the same user or root).
 */
class PostgresPasswordPlacesTest {

    @Test
    void theServersProcessesHaveThePasswordNeitherInTheirArgumentsNorInTheirEnvironment() throws Exception {
        EmbeddedServer server = SharedServer.target().server();
        Path dataDir = server.dataDir();
        List<ProcessesUnder.Seen> seen = ProcessesUnder.naming(dataDir);
        for (ProcessesUnder.Seen p : seen) {
            assertFalse(p.arguments().contains(server.superuserPassword()), "the arguments of " + p.pid());
            assertFalse(p.environment().contains(server.superuserPassword()), "the environment of " + p.pid());
        }
    }
}
