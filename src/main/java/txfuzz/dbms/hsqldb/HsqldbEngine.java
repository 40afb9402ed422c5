package txfuzz.dbms.hsqldb;

import java.sql.SQLException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.history.Anomaly;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Profile;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.Target;
import txfuzz.dbms.Engine;
import txfuzz.dbms.TargetOptions;

/** HSQLDB 2.7 as txfuzz knows it without starting it (see {@link HsqldbTarget} for the modes and what was measured); {@link HsqldbTarget} is the live part. */
public final class HsqldbEngine implements Engine {
    static final String DOCS_MVCC = "https://hsqldb.org/doc/2.0/guide/sessions-chapt.html#snc_tx_mvcc";
    static final String DOCS_2PL = "https://hsqldb.org/doc/2.0/guide/sessions-chapt.html#snc_tx_2pl";
    static final String DOCS_MVLOCKS = "https://hsqldb.org/doc/2.0/guide/sessions-chapt.html#snc_tx_2pl_si";
    static final String DOCS_CHOOSING = "https://hsqldb.org/doc/2.0/guide/sessions-chapt.html#snc_tx_choosing";
    /**
     * The guide's own sentences (doc-src/guide/sessions.xml, sections snc_tx_choosing and snc_tx_mvcc, the same from 2.3 to
     * the 2025 sources): MVCC's REPEATABLE READ and SERIALIZABLE are snapshot isolation, and an application that needs
     * SERIALIZABLE transactions is sent to a 2PL mode.
     */
    static final String MVCC_IS_SNAPSHOT_ISOLATION = "When operating with the MVCC model, HyperSQL treats a REPEATABLE READ or"
            + " SERIALIZABLE setting for a transaction as SNAPSHOT ISOLATION.";
    static final String SERIALIZABLE_NEEDS_2PL = "Some applications require SERIALIZABLE transactions for at least some of their"
            + " operations. For these applications, one of the 2PL modes can be used.";
    static final String SAME_ROW_CONFLICT = "In this mode, when the duration of two transactions overlaps, if one of the transactions"
            + " has modified a row and the second transaction wants to modify the same row, the action of the second transaction"
            + " will fail.";
    /**
     * Where the guide says MVCC's snapshot levels are not serializable: snapshot isolation, SERIALIZABLE transactions only in
     * 2PL, a conflict only on the same row. It never names write skew: that two transactions writing different rows both
     * commit is what the same-row rule leaves.
     */
    static final String WRITE_SKEW_DOCUMENTED = DOCS_CHOOSING + " (\"" + MVCC_IS_SNAPSHOT_ISOLATION + " [...] " + SERIALIZABLE_NEEDS_2PL
            + "\") and " + DOCS_MVCC + " (\"" + SAME_ROW_CONFLICT + "\"): not serializable, a conflict only where both modify"
            + " the same row, so write skew";
    static final List<String> MODES = List.of("mvcc", "locks", "mvlocks");

    /** The jar's own constant: nothing starts. */
    @Override
    public String defaultVersion() {
        return "HSQLDB " + org.hsqldb.persist.HsqlDatabaseProperties.THIS_FULL_VERSION;
    }

    /** The settings of this engine's target, for a finding's Repro.java. */
    @Override
    public java.util.Optional<txfuzz.dbms.StandaloneJdbc> standaloneJdbc() {
        return java.util.Optional.of(new txfuzz.dbms.StandaloneJdbc("jdbc:hsqldb:mem:repro;hsqldb.tx_conflict_rollback=true", "SA", "", false, false));
    }

    @Override
    public java.util.Optional<txfuzz.dbms.versions.MavenArtifact> artifact() {
        return java.util.Optional.of(new txfuzz.dbms.versions.MavenArtifact("org.hsqldb", "hsqldb"));
    }

    @Override
    public Target open(TargetOptions options) {
        return new HsqldbTarget(this, Engine.inProcessDriver(this, options, "jdbc:hsqldb:mem:"), options == null ? java.util.Map.of() : options.settings());
    }

    /** The SQL syntax compatibility properties, given on the URL that creates the database (https://hsqldb.org/doc/2.0/guide/dbproperties-chapt.html#dpc_sql_conformance). */
    @Override
    public List<txfuzz.dbms.EngineSetting> settings() {
        String manual = "https://hsqldb.org/doc/2.0/guide/dbproperties-chapt.html#dpc_sql_conformance";
        return java.util.stream.Stream.of("sql.syntax_pgs", "sql.syntax_mys", "sql.syntax_ora", "sql.syntax_db2", "sql.syntax_mss")
                .map(k -> txfuzz.dbms.EngineSetting.oneOf(k, "HSQLDB database URL property ;" + k + "=…", manual,
                        "SET DATABASE SQL SYNTAX " + k.substring(k.length() - 3).toUpperCase(java.util.Locale.ROOT) + " %s", "true", "false")).toList();
    }

    // abortScope: the Target default. With hsqldb.tx_conflict_rollback=true (the default, and set in
    // our URL) HSQLDB has already rolled the whole transaction back when it raises 40001 — the session
    // is out of the transaction and the executor's ROLLBACK is a harmless no-op. Other errors undo only
    // their statement.

    @Override
    public String name() {
        return "hsqldb";
    }

    /** READ UNCOMMITTED is left out: HSQLDB runs it as READ COMMITTED in every mode. */
    @Override
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ, IsolationLevel.SERIALIZABLE);
    }

    @Override
    public List<String> modes() {
        return MODES;
    }

    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        // FOR UPDATE is accepted in every mode, but only LOCKS/MVLOCKS lock for it (a table write lock);
        // MVCC takes no lock for it. REPLACE / ON DUPLICATE KEY exist only under MySQL syntax mode.
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.JOIN_FULL, Feature.FOR_UPDATE, Feature.MERGE));
        return new Dialect("hsqldb", f, "DOUBLE PRECISION", "VARCHAR(10)");
    }

    /**
     * The profile of the default mode, mvcc. Profile has no mode dimension yet; {@link #profile(String)}
     * gives the other modes' semantics, which differ at REPEATABLE READ and SERIALIZABLE.
     */
    @Override
    public Profile profile() {
        return profile(MODES.get(0));
    }

    /** What HSQLDB documents for each level in {@code mode}. */
    /**
     * MVCC: REPEATABLE READ and SERIALIZABLE are snapshot isolation; LOCKS (two-phase locking) upgrades REPEATABLE READ
     * to SERIALIZABLE. MVLOCKS keeps what the levels' names promise.
     */
    @Override
    public txfuzz.dbms.LevelPromise promise(IsolationLevel level, String mode) {
        String m = checkMode(mode);
        if (level == IsolationLevel.REPEATABLE_READ || level == IsolationLevel.SERIALIZABLE) {
            if (m.equals("mvcc")) {
                return new txfuzz.dbms.LevelPromise(txfuzz.dbms.Promise.SNAPSHOT_ISOLATION, DOCS_CHOOSING + " (\"" + MVCC_IS_SNAPSHOT_ISOLATION + "\")");
            }
            if (m.equals("locks")) {
                return new txfuzz.dbms.LevelPromise(txfuzz.dbms.Promise.SERIALIZABLE, DOCS_2PL + " (\"The REPEATABLE READ level is upgraded to"
                        + " SERIALIZABLE. These levels keep both read and write locks on tables until commit.\")");
            }
        }
        return txfuzz.dbms.Engine.super.promise(level, mode);
    }

    @Override
    public Profile profile(String mode) {
        Map<IsolationLevel, LevelSemantics> m = new EnumMap<>(IsolationLevel.class);
        if (checkMode(mode).equals("mvcc")) {
            m.put(IsolationLevel.READ_COMMITTED, LevelSemantics.permits(DOCS_MVCC, Deviation.STATEMENT_VISIBILITY).requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS));
            // "HyperSQL treats a REPEATABLE READ or SERIALIZABLE setting for a transaction as SNAPSHOT ISOLATION", which fails a
            // write only to "modify the same row" (even after the first transaction "has already committed": first-committer-wins),
            // and sends applications that "require SERIALIZABLE transactions" to 2PL: write skew is documented.
            m.put(IsolationLevel.REPEATABLE_READ, LevelSemantics.permits(DOCS_MVCC, Deviation.TRANSACTION_SNAPSHOT)
                    .documenting(WRITE_SKEW_DOCUMENTED, Anomaly.WRITE_SKEW, Anomaly.G2_ITEM, Anomaly.G2).requiring(Deviation.Precondition.FIRST_COMMITTER_WINS));
            m.put(IsolationLevel.SERIALIZABLE, LevelSemantics.permits(DOCS_MVCC, Deviation.TRANSACTION_SNAPSHOT)
                    .documenting(WRITE_SKEW_DOCUMENTED, Anomaly.WRITE_SKEW, Anomaly.G2_ITEM, Anomaly.G2).requiring(Deviation.Precondition.FIRST_COMMITTER_WINS));
        } else {
            // LOCKS and MVLOCKS: read locks are released after each statement at READ COMMITTED and
            // kept to commit above it ("The REPEATABLE READ level is upgraded to SERIALIZABLE. These
            // levels keep both read and write locks on tables until commit").
            m.put(IsolationLevel.READ_COMMITTED, LevelSemantics.permits(DOCS_2PL, Deviation.STATEMENT_VISIBILITY).requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS));
            LevelSemantics above = checkMode(mode).equals("mvlocks") ? mvlocksAboveReadCommitted() : LevelSemantics.strict(DOCS_2PL);
            m.put(IsolationLevel.REPEATABLE_READ, above);
            m.put(IsolationLevel.SERIALIZABLE, above);
        }
        return new Profile(m);
    }

    /**
     * MVLOCKS at REPEATABLE READ and SERIALIZABLE, as the guide describes the mode: it "works the same
     * way as normal 2PL as far as updates are concerned", and "SNAPSHOT ISOLATION [...] uses the
     * snapshot of the whole database at the time of the start of the transaction. In this model,
     * read-only transactions use SNAPSHOT ISOLATION." A transaction that only reads thus serializes
     * where its snapshot was taken, not at its COMMIT: its reads need not match the commit-order
     * serial schedule. Writes must (2PL: no deviation, no documented anomaly). A transaction that
     * writes after reading its start snapshot is not what the guide describes; its writes show it.
     */
    static LevelSemantics mvlocksAboveReadCommitted() {
        return new LevelSemantics(Set.of(), false, DOCS_MVLOCKS);
    }

    /**
     * By vendor code first (HSQLDB's codes are negative; the SQLState is derived from them):
     * <pre>
     *  -4861 40001 serialization failure   SERIALIZATION (MVCC write conflict AND 2PL deadlock victim:
     *                                        HSQLDB reports both alike, so no DEADLOCK here)
     *  -4860 40000 transaction rollback    SERIALIZATION
     *  -4862 40002 integrity violation at commit, transaction rolled back: SERIALIZATION
     *  -4872 40502 statement timeout       LOCK_TIMEOUT (only with a JDBC query timeout)
     *  S1000 (-458 "General error", -460 out of memory, file/IO errors)   INTERNAL
     *  08xxx (-1353 08503 "connection exception: closed")                 CONNECTION_LOST
     *  23xxx CONSTRAINT, 22xxx DATA, 42xxx and 0Axxx INVALID_STATEMENT (e.g. -5581 42581 unexpected
     *  token, -5501 42501 object not found)
     * </pre>
     */
    @Override
    public ErrorClass classify(SQLException e) {
        switch (Math.abs(e.getErrorCode())) {
            case 4861, 4860, 4862:
                return ErrorClass.SERIALIZATION;
            case 4872:
                return ErrorClass.LOCK_TIMEOUT;
            case 458, 460:
                return ErrorClass.INTERNAL;
            default:
                break;
        }
        String state = e.getSQLState();
        if (state == null) {
            return ErrorClass.OTHER;
        }
        if (state.startsWith("S1") || state.startsWith("HY")) {
            return ErrorClass.INTERNAL;
        }
        ErrorClass standard = SqlStates.byStandardClass(e);
        return standard != null ? standard : ErrorClass.OTHER;
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        return List.of(
                "SET DATABASE TRANSACTION CONTROL " + checkMode(mode).toUpperCase(Locale.ROOT),
                "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + checkLevel(level).sql(),
                "SET AUTOCOMMIT TRUE");
    }

    /**
     * HSQLDB's START TRANSACTION does nothing in autocommit mode (the next statement still commits at
     * once), so a transaction is opened the way JDBC does it: autocommit off, the transaction begins
     * with its first statement. Each session runs a single transaction, so autocommit stays off after
     * its COMMIT.
     */
    @Override
    public String beginSql() {
        return "SET AUTOCOMMIT FALSE";
    }

    IsolationLevel checkLevel(IsolationLevel level) {
        if (!isolationLevels().contains(level)) {
            throw new IllegalArgumentException("HSQLDB has no isolation level " + level + "; it offers " + isolationLevels());
        }
        return level;
    }

    static String checkMode(String mode) {
        String m = mode == null || mode.equals("default") ? MODES.get(0) : mode.toLowerCase(Locale.ROOT);
        if (!MODES.contains(m)) {
            throw new IllegalArgumentException("HSQLDB has no mode '" + mode + "'; it has " + MODES);
        }
        return m;
    }
}
