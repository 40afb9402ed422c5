package txfuzz.dbms.sqlite;

import java.sql.SQLException;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Profile;
import txfuzz.dbms.Target;
import txfuzz.dbms.Engine;
import txfuzz.dbms.TargetOptions;

/** SQLite (xerial sqlite-jdbc) as txfuzz knows it without starting it; {@link SqliteTarget} is the live part. */
public final class SqliteEngine implements Engine {
    static final List<String> MODES = List.of("deferred", "immediate");
    static final String DOCS = "https://www.sqlite.org/isolation.html";

    /** The driver jar's version (3.50.3.0 bundles SQLite 3.50.3): nothing starts, no native library is loaded. */
    @Override
    public String defaultVersion() {
        String v = org.sqlite.SQLiteJDBCLoader.getVersion();
        return "SQLite " + (v.chars().filter(ch -> ch == '.').count() == 3 ? v.substring(0, v.lastIndexOf('.')) : v);
    }

    /** The settings of this engine's target, for a finding's Repro.java. */
    @Override
    public java.util.Optional<txfuzz.dbms.StandaloneJdbc> standaloneJdbc() {
        return java.util.Optional.of(new txfuzz.dbms.StandaloneJdbc("jdbc:sqlite:{tmp}/repro.db", null, null, true, false));
    }

    @Override
    public java.util.Optional<txfuzz.dbms.versions.MavenArtifact> artifact() {
        return java.util.Optional.of(new txfuzz.dbms.versions.MavenArtifact("org.xerial", "sqlite-jdbc"));
    }

    @Override
    public Target open(TargetOptions options) {
        return new SqliteTarget(this, Engine.inProcessDriver(this, options, SqliteTarget.PROBE_URL));
    }

    // SQLite fails only the statement and leaves the transaction open (holding its read snapshot, which
    // after BUSY_SNAPSHOT can never write again), so the executor's ROLLBACK is what ends it. Constraint
    // violations (default conflict resolution ABORT) undo only their statement.

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.SERIALIZABLE);
    }

    @Override
    public List<String> modes() {
        return MODES;
    }

    /**
     * BEGIN [DEFERRED | IMMEDIATE | EXCLUSIVE] [TRANSACTION] (https://sqlite.org/lang_transaction.html): plain BEGIN is
     * DEFERRED; EXCLUSIVE is IMMEDIATE in WAL mode, the mode this target's databases run in.
     */
    private static final java.util.regex.Pattern BEGIN_WITH_MODE = java.util.regex.Pattern.compile(
            "^BEGIN(?:\\s+(DEFERRED|IMMEDIATE|EXCLUSIVE))?(?:\\s+TRANSACTION)?$", java.util.regex.Pattern.CASE_INSENSITIVE);

    @Override
    public java.util.Optional<String> modeOfBegin(String begin) {
        java.util.regex.Matcher m = BEGIN_WITH_MODE.matcher(begin.strip());
        if (!m.matches()) {
            return java.util.Optional.empty();
        }
        String word = m.group(1) == null ? "deferred" : m.group(1).toLowerCase(java.util.Locale.ROOT);
        return java.util.Optional.of(word.equals("exclusive") ? "immediate" : word);
    }

    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        // RIGHT and FULL JOIN since 3.39; UPSERT (ON CONFLICT) since 3.24; REPLACE INTO. No FOR UPDATE,
        // no MERGE. Column types are affinities: VARCHAR(10) does not limit length, DOUBLE PRECISION is REAL.
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.JOIN_FULL, Feature.INSERT_ON_CONFLICT, Feature.REPLACE, Feature.DELETE_RETURNING,
                Feature.INTEGER_PRIMARY_KEY_IS_ROWID));
        return new Dialect("sqlite", f, "DOUBLE PRECISION", "VARCHAR(10)");
    }

    /**
     * SQLite isolates connections serializably: one writer at a time, and in WAL mode a reader keeps
     * the snapshot of its first read; a transaction that read an old snapshot and then writes fails
     * with SQLITE_BUSY_SNAPSHOT. So writes are serial in commit order (no deviation). But a read-only
     * transaction serializes at its snapshot, not at its COMMIT: it may commit after a writer whose
     * changes it never saw. Reads therefore do not have to match the commit-order serial schedule
     * (serializableReads = false) — with BEGIN IMMEDIATE they would, as every transaction takes the
     * write lock at BEGIN (see {@link #profile(String)}).
     */
    @Override
    public Profile profile() {
        return profile(MODES.get(0));
    }

    /** With BEGIN IMMEDIATE every transaction holds the write lock from BEGIN: reads too follow commit order. */
    @Override
    public Profile profile(String mode) {
        boolean immediate = "immediate".equals(mode);
        return new Profile(Map.of(IsolationLevel.SERIALIZABLE, new LevelSemantics(Set.of(), immediate, DOCS)));
    }

    /**
     * By SQLite's result code (sqlite-jdbc's vendor code is the primary code; the extended code is
     * in SQLiteException.getResultCode(); SQLState is null):
     * <pre>
     *  5 BUSY (incl. 517 BUSY_SNAPSHOT, 261 BUSY_RECOVERY), 6 LOCKED    BUSY
     *  19 CONSTRAINT (1555 PK, 2067 UNIQUE, 1299 NOT NULL, 275 CHECK, 787 FK)   CONSTRAINT
     *  20 MISMATCH, 18 TOOBIG                                          DATA
     *  1 ERROR: "integer overflow" DATA; "... transaction ..." (no transaction is active,
     *    within a transaction) OTHER; otherwise (syntax, no such table/column) INVALID_STATEMENT
     *  25 RANGE                                                        INVALID_STATEMENT
     *  2 INTERNAL, 7 NOMEM, 10 IOERR, 11 CORRUPT, 13 FULL, 14 CANTOPEN, 15 PROTOCOL, 21 MISUSE,
     *    26 NOTADB                                                     INTERNAL
     *  vendor code 0 "database connection closed" / "stmt pointer is closed"   CONNECTION_LOST
     * </pre>
     */
    @Override
    public ErrorClass classify(SQLException e) {
        // sqlite-jdbc's SQLiteException carries the primary result code as the vendor code (its extended
        // code & 0xff): read that, not the class, which a driver of another version (own class loader) does not share.
        int code = e.getErrorCode();
        String msg = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        switch (code & 0xff) {
            case 5, 6:
                return ErrorClass.BUSY;
            case 19:
                return ErrorClass.CONSTRAINT;
            case 20, 18:
                return ErrorClass.DATA;
            case 1:
                if (msg.contains("integer overflow")) {
                    return ErrorClass.DATA;
                }
                if (msg.contains("transaction")) {
                    return ErrorClass.OTHER;
                }
                return ErrorClass.INVALID_STATEMENT;
            case 25:
                return ErrorClass.INVALID_STATEMENT;
            case 2, 7, 10, 11, 13, 14, 15, 21, 26:
                return ErrorClass.INTERNAL;
            case 0:
                if (msg.contains("closed")) {
                    return ErrorClass.CONNECTION_LOST;
                }
                return ErrorClass.OTHER;
            default:
                return ErrorClass.OTHER;
        }
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        checkLevel(level);
        checkMode(mode);
        return List.of("PRAGMA journal_mode = WAL", "PRAGMA busy_timeout = 0", "PRAGMA foreign_keys = ON", "PRAGMA synchronous = OFF");
    }

    /** The default mode's BEGIN; {@link #beginSql(String)} spells the others. */
    @Override
    public String beginSql() {
        return beginSql(MODES.get(0));
    }

    @Override
    public String beginSql(String mode) {
        return "BEGIN " + checkMode(mode).toUpperCase(Locale.ROOT);
    }

    static void checkLevel(IsolationLevel level) {
        if (level != IsolationLevel.SERIALIZABLE) {
            throw new IllegalArgumentException("SQLite has only SERIALIZABLE, not " + level);
        }
    }

    static String checkMode(String mode) {
        String m = mode == null || mode.equals("default") ? MODES.get(0) : mode.toLowerCase(Locale.ROOT);
        if (!MODES.contains(m)) {
            throw new IllegalArgumentException("SQLite has no mode '" + mode + "'; it has " + MODES);
        }
        return m;
    }
}
