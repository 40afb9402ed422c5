package txfuzz.dbms.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.server.SessionPool;

/**
 * txfuzz's own corner of a PostgreSQL server: one database {@code txfuzz_N} (N = 1, 2, ...), created
 * from template0 when missing and marked by a table {@code public.txfuzz_owner}, claimed for the
 * target's lifetime by a session-level advisory lock held by the keeper session; inside it one
 * schema {@code txfuzz_case_K} per test case.
 *
 * <p>Safety: a database of that name without the marker was not made by txfuzz, and the claim
 * refuses to start rather than touch it. Nothing outside the claimed database is ever created,
 * changed or dropped. Same shape as the MariaDB {@code Namespace}: claimed when made, an admin
 * (keeper) session, create and drop of a case's namespace, close releases the claim.
 */
final class Namespace implements AutoCloseable {
    static final String MARKER = "txfuzz_owner";
    static final String SCHEMA_PREFIX = "txfuzz_case_";
    /** How many txfuzz_N databases a server may hold before a new target gives up. */
    static final int MAX_NAMESPACES = 32;
    /** pg_try_advisory_lock key by which a target claims its txfuzz_N database ("txfz"). */
    static final long CLAIM_KEY = 0x7478667AL;

    private final String database;
    private final Connection keeper;

    private Namespace(String database, Connection keeper) {
        this.database = database;
        this.keeper = keeper;
    }

    /**
     * Claims the first txfuzz_N database that is free: created (from template0, with the marker)
     * when missing, refused when it exists without the marker, skipped when another target holds
     * its advisory lock.
     */
    static Namespace claim(Endpoint endpoint, Connection maintenance) throws SQLException {
        for (int n = 1; n <= MAX_NAMESPACES; n++) {
            String name = "txfuzz_" + n;
            boolean created = false;
            if (!databaseExists(maintenance, name)) {
                try (Statement s = maintenance.createStatement()) {
                    s.execute("CREATE DATABASE " + name + " TEMPLATE template0");
                    created = true;
                } catch (SQLException e) {
                    if (!"42P04".equals(e.getSQLState())) { // 42P04: another txfuzz created it just now
                        throw new IllegalStateException("cannot create database " + name + " on " + endpoint.describe("") + " as "
                                + endpoint.user() + ": " + SqlStates.message(e) + " (txfuzz needs the CREATEDB privilege to make its own"
                                + " database)", e);
                    }
                }
            }
            Connection c = endpoint.open(name);
            try {
                if (created) {
                    try (Statement s = c.createStatement()) {
                        s.execute("CREATE TABLE public." + MARKER + " (created_at TIMESTAMPTZ NOT NULL DEFAULT now(), note TEXT NOT NULL)");
                        s.execute("INSERT INTO public." + MARKER + " (note) VALUES ('created by txfuzz: it drops and re-creates the schemas "
                                + SCHEMA_PREFIX + "* in this database for every test case and touches nothing else')");
                    }
                } else if (!hasMarker(c)) {
                    throw new IllegalStateException("database " + name + " on " + endpoint.describe("") + " exists but was not created by"
                            + " txfuzz (it has no table public." + MARKER + "); txfuzz never touches a database it did not create: rename"
                            + " or drop it yourself if it is not needed");
                }
                if (lock(c)) {
                    try (Statement s = c.createStatement()) {
                        // waits of the keeper's schema DDL are bounded: see drop
                        s.execute("SET lock_timeout = '10s'");
                    }
                    return new Namespace(name, c);
                }
                c.close();
            } catch (SQLException | RuntimeException e) {
                SessionPool.closeQuietly(c);
                throw e;
            }
        }
        throw new IllegalStateException("all " + MAX_NAMESPACES + " txfuzz databases on " + endpoint.describe("")
                + " are in use by other txfuzz runs");
    }

    private static boolean databaseExists(Connection c, String name) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            p.setString(1, name);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static boolean hasMarker(Connection c) throws SQLException {
        for (int attempt = 0; ; attempt++) {
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT to_regclass('public." + MARKER + "') IS NOT NULL")) {
                rs.next();
                if (rs.getBoolean(1) || attempt == 10) {
                    return rs.getBoolean(1);
                }
            }
            sleep(100); // another txfuzz may have created the database a moment ago and be adding its marker
        }
    }

    private static boolean lock(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_try_advisory_lock(" + CLAIM_KEY + ")")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** The claimed database, e.g. "txfuzz_1". */
    String database() {
        return database;
    }

    /** The keeper session: holds the claim and runs the schema DDL. */
    Connection admin() {
        return keeper;
    }

    /** Makes {@code schema} a new, empty case schema (dropping what a former case left in it). */
    void create(String schema) throws SQLException {
        exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema);
    }

    /**
     * Drops a case schema. A session of the case that is still in a transaction (a statement the
     * executor gave up on) would hold locks the DROP waits for: after the keeper's lock_timeout,
     * txfuzz's own other sessions in its database are terminated and the DROP is tried again.
     */
    void drop(String schema) {
        String sql = "DROP SCHEMA IF EXISTS " + schema + " CASCADE";
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                exec(sql);
                return;
            } catch (SQLException e) {
                if (!"55P03".equals(e.getSQLState())) {
                    return; // the server is gone: the next fresh database recovers, and drops the schema then
                }
                try {
                    exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                            + " AND pid <> pg_backend_pid() AND application_name = 'txfuzz'");
                } catch (SQLException ignored) {
                    return;
                }
            }
        }
    }

    private void exec(String sql) throws SQLException {
        try (Statement s = keeper.createStatement()) {
            s.execute(sql);
        }
    }

    /** Gives up the claim at once (the keeper broke, or the server died). */
    void abandon() {
        SessionPool.abortQuietly(keeper);
    }

    /** Ends the keeper session and so the claim. */
    @Override
    public void close() {
        SessionPool.closeQuietly(keeper);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
