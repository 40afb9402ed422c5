package txfuzz.dbms.postgres;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * What txfuzz knows of the server a {@link PostgresTarget} started, for tests outside this package that
 * kill it (by the postmaster's pid, as recorded from its postmaster.pid) and check what is left.
 */
public final class StartedPostgres {
    private StartedPostgres() {
    }

    /** The postmaster's process id; -1 when the target did not start its server. */
    public static long postmasterPid(PostgresTarget t) {
        EmbeddedServer s = t.server();
        return s == null ? -1 : s.postmasterPid();
    }

    /** The data directory of the target's current server. */
    public static Path dataDir(PostgresTarget t) {
        return t.server().dataDir();
    }

    /** Whether the process runs (a killed postmaster is a zombie until reaped: not running). */
    public static boolean running(long pid) {
        return ProcessHandle.of(pid).map(EmbeddedServer::running).orElse(false);
    }

    /** A superuser session on the target's own database (its namespace), outside any test case. */
    public static Connection admin(PostgresTarget t) throws SQLException {
        return t.server().adminEndpoint().open(t.database());
    }
}
