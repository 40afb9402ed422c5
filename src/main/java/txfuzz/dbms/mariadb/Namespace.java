package txfuzz.dbms.mariadb;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * txfuzz's own corner of a server: the database {@value #HOME} with its marker table, and one
 * database per test case named {@code txfuzz_<token>_<n>}, where the token belongs to this target
 * instance alone.
 *
 * <p>Safety: the home database is created if missing; if it exists without the marker table txfuzz
 * refuses to run. Case databases are created with a plain CREATE DATABASE (never IF NOT EXISTS), so
 * txfuzz only ever drops databases it created. Each instance records its token in the home database
 * and holds the user lock {@code txfuzz_owner_<token>} while it runs; a later instance that finds a
 * token whose lock is free drops that dead instance's leftover case databases (after a kill -9).
 *
 * <p>Reset strategy: a new database per case, dropped when the case is done (see MariadbTarget for
 * the measurements). The drop is synchronous on purpose: MariaDB 10.11.5 can crash in DROP DATABASE
 * (InnoDB assertion table->n_rec_locks == 0), and the crash must be reported with the case that
 * caused it, not with whichever case happens to run next.
 */
final class Namespace implements AutoCloseable {
    static final String HOME = "txfuzz_home";
    static final String MARKER = "txfuzz_marker";
    static final String OWNERS = "txfuzz_owners";
    /** Case databases: txfuzz_ + 12 hex digits + _ + a number. */
    static final Pattern CASE_DB = Pattern.compile("txfuzz_[0-9a-f]{12}_[0-9]+");

    private final Supplier<Connection> connector;
    private final Connection admin;
    private final String token;
    private final AtomicLong next = new AtomicLong();

    /**
     * Claims a new token on the server {@code connector} reaches.
     *
     * @throws IllegalStateException when the home database exists but was not made by txfuzz
     */
    Namespace(Supplier<Connection> connector) throws SQLException {
        this.connector = connector;
        this.admin = connector.get();
        boolean ok = false;
        try {
            ensureHome(admin);
            this.token = HexFormat.of().formatHex(new SecureRandom().generateSeed(6));
            try (Statement s = admin.createStatement()) {
                // DROP DATABASE must not wait a day for a metadata lock held by a stuck session
                s.execute("SET SESSION lock_wait_timeout = 10");
                try (ResultSet rs = s.executeQuery("SELECT GET_LOCK('" + lockName(token) + "', 0)")) {
                    rs.next();
                    if (rs.getInt(1) != 1) {
                        throw new SQLException("cannot take the user lock " + lockName(token));
                    }
                }
                s.executeUpdate("INSERT INTO " + HOME + "." + OWNERS + " (token) VALUES ('" + token + "')");
            }
            dropLeftovers();
            ok = true;
        } finally {
            if (!ok) {
                closeQuietly(admin);
            }
        }
    }

    /** Creates the home database and its tables, or checks that an existing one is txfuzz's. */
    static void ensureHome(Connection c) throws SQLException {
        boolean exists;
        boolean marked;
        try (PreparedStatement p = c.prepareStatement(
                "SELECT (SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?),"
                        + " (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?)")) {
            p.setString(1, HOME);
            p.setString(2, HOME);
            p.setString(3, MARKER);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                exists = rs.getInt(1) > 0;
                marked = rs.getInt(2) > 0;
            }
        }
        if (exists && !marked) {
            throw new IllegalStateException("database " + HOME + " exists but was not created by txfuzz (it has no table " + MARKER
                    + "); txfuzz never touches what it did not create: rename or drop it yourself, or use another server");
        }
        try (Statement s = c.createStatement()) {
            if (!exists) {
                s.execute("CREATE DATABASE " + HOME);
                s.execute("CREATE TABLE " + HOME + "." + MARKER + " (created_by VARCHAR(20) NOT NULL, created_at TIMESTAMP NOT NULL"
                        + " DEFAULT CURRENT_TIMESTAMP, note VARCHAR(200))");
                s.execute("INSERT INTO " + HOME + "." + MARKER + " (created_by, note) VALUES ('txfuzz', 'txfuzz keeps its test databases"
                        + " here and in databases named txfuzz_<token>_<n>; it drops only those it created')");
            }
            s.execute("CREATE TABLE IF NOT EXISTS " + HOME + "." + OWNERS + " (token CHAR(12) PRIMARY KEY, started_at TIMESTAMP NOT NULL"
                    + " DEFAULT CURRENT_TIMESTAMP)");
        }
    }

    private static String lockName(String token) {
        return "txfuzz_owner_" + token;
    }

    /** Drops the case databases of instances that are gone (their user lock is free). */
    private void dropLeftovers() throws SQLException {
        List<String> dead = new ArrayList<>();
        try (Statement s = admin.createStatement();
             ResultSet rs = s.executeQuery("SELECT token FROM " + HOME + "." + OWNERS + " WHERE IS_FREE_LOCK(CONCAT('txfuzz_owner_', token)) = 1")) {
            while (rs.next()) {
                dead.add(rs.getString(1));
            }
        }
        for (String t : dead) {
            for (String db : caseDatabases(admin, t)) {
                try (Statement s = admin.createStatement()) {
                    s.execute("DROP DATABASE IF EXISTS " + db);
                }
            }
            try (Statement s = admin.createStatement()) {
                s.executeUpdate("DELETE FROM " + HOME + "." + OWNERS + " WHERE token = '" + t + "'");
            }
        }
    }

    private static List<String> caseDatabases(Connection c, String token) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?")) {
            p.setString(1, "txfuzz\\_" + token + "\\_%");
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    if (CASE_DB.matcher(name).matches()) {
                        out.add(name);
                    }
                }
            }
        }
        return out;
    }

    String token() {
        return token;
    }

    /** The admin session: creates databases and kills sessions left behind. */
    Connection admin() {
        return admin;
    }

    /** Creates a new, empty case database and returns its name. */
    synchronized String create() throws SQLException {
        while (true) {
            String name = "txfuzz_" + token + "_" + next.incrementAndGet();
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE DATABASE " + name);
                return name;
            } catch (SQLException e) {
                if (e.getErrorCode() != 1007) { // 1007: database exists (not ours): take the next name
                    throw e;
                }
            }
        }
    }

    /** Drops a case database this instance created. */
    synchronized void drop(String name) throws SQLException {
        if (!CASE_DB.matcher(name).matches() || !name.startsWith("txfuzz_" + token + "_")) {
            throw new IllegalArgumentException("not a case database of this instance: " + name);
        }
        try (Statement s = admin.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
        }
    }

    /** Drops every case database of this instance, forgets the token and releases the lock. Idempotent. */
    @Override
    public synchronized void close() {
        try {
            if (!admin.isClosed()) {
                for (String db : caseDatabases(admin, token)) {
                    try (Statement s = admin.createStatement()) {
                        s.execute("DROP DATABASE IF EXISTS " + db);
                    }
                }
                try (Statement s = admin.createStatement()) {
                    s.executeUpdate("DELETE FROM " + HOME + "." + OWNERS + " WHERE token = '" + token + "'");
                    s.execute("DO RELEASE_LOCK('" + lockName(token) + "')");
                }
            }
        } catch (SQLException | RuntimeException ignored) {
            // the server is gone; a later instance sweeps what is left
        }
        closeQuietly(admin);
    }

    static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException | RuntimeException ignored) {
            // already broken
        }
    }
}
