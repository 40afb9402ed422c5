package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;
import txfuzz.dbms.server.ProcessesUnder;

/**
 * docs/security.md says the run's password is on no command line and in no environment: another local
 * user can read both of any process (/proc/PID/cmdline, and environ for the same user or root).
 */
class MariadbPasswordPlacesTest {

    @Test
    void theServersProcessesHaveThePasswordNeitherInTheirArgumentsNorInTheirEnvironment() throws Exception {
        try (MariadbTarget target = new MariadbTarget()) {
            EmbeddedMariadb server = target.server();
            for (ProcessesUnder.Seen p : ProcessesUnder.naming(server.directory())) {
                assertFalse(p.arguments().contains(server.password()), "the arguments of " + p.pid());
                assertFalse(p.environment().contains(server.password()), "the environment of " + p.pid());
            }
        }
    }
}
