package txfuzz.dbms.derby;

import java.sql.SQLException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Basis;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Profile;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.Target;
import txfuzz.dbms.Engine;
import txfuzz.dbms.TargetOptions;

/** Apache Derby as txfuzz knows it without starting it; {@link DerbyTarget} is the live part. */
public final class DerbyEngine implements Engine {
    static final int WAIT_TIMEOUT_S = 10;
    static final int DEADLOCK_TIMEOUT_S = 0;
    static final String DOCS = "https://db.apache.org/derby/docs/10.16/devguide/cdevconcepts15366.html";
    static final String SCHEMA = "APP";

    /** From the jar's own version file (what sysinfo prints): nothing starts. */
    @Override
    public String defaultVersion() {
        java.util.Properties p = new java.util.Properties();
        try (java.io.InputStream in = DerbyEngine.class.getResourceAsStream("/org/apache/derby/info/engine/info.properties")) {
            p.load(in);
        } catch (java.io.IOException | RuntimeException e) {
            return "Apache Derby";
        }
        long maint = Long.parseLong(p.getProperty("derby.version.maint", "0"));
        return "Apache Derby " + p.getProperty("derby.version.major") + "." + p.getProperty("derby.version.minor") + "." + maint / 1_000_000
                + "." + maint % 1_000_000 + " - (" + p.getProperty("derby.build.number") + ")";
    }

    /** The settings of this engine's target, for a finding's Repro.java. */
    @Override
    public java.util.Optional<txfuzz.dbms.StandaloneJdbc> standaloneJdbc() {
        return java.util.Optional.of(new txfuzz.dbms.StandaloneJdbc("jdbc:derby:memory:repro;create=true", null, null, false, false));
    }

    @Override
    public java.util.Optional<txfuzz.dbms.versions.MavenArtifact> artifact() {
        return java.util.Optional.of(new txfuzz.dbms.versions.MavenArtifact("org.apache.derby", "derby"));
    }

    @Override
    public Target open(TargetOptions options) {
        return new DerbyTarget(this, Engine.inProcessDriver(this, options, DerbyTarget.PROBE_URL));
    }

    @Override
    public String name() {
        return "derby";
    }

    @Override
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.READ_UNCOMMITTED, IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ,
                IsolationLevel.SERIALIZABLE);
    }

    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        // No FULL JOIN. FOR UPDATE only on a single-table SELECT without ORDER BY, aggregates or
        // DISTINCT (42Y90 otherwise). MERGE only with a base table (or table function) as source.
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.FOR_UPDATE, Feature.MERGE));
        return new Dialect("derby", f, "DOUBLE PRECISION", "VARCHAR(10)");
    }

    /**
     * Derby: "Inserts, updates, and deletes always behave the same no matter what the isolation level
     * is. Only the behavior of select statements varies." Writes lock the rows they change; only
     * SERIALIZABLE (Derby's RR) takes range locks, so below it phantoms reach writes too.
     */
    @Override
    public Profile profile() {
        Map<IsolationLevel, LevelSemantics> m = new EnumMap<>(IsolationLevel.class);
        // Derby's UR: reads take no locks and see uncommitted data (writes still lock).
        // The manual says writes see the same at every level: each write statement-level, locking what it changes.
        Basis writesAlike = new Basis.Documented("Inserts, updates, and deletes always behave the same no matter what the isolation level is."
                + " Only the behavior of select statements varies.", DOCS);
        m.put(IsolationLevel.READ_UNCOMMITTED, LevelSemantics.permits(DOCS, Deviation.DIRTY_VISIBILITY)
                .basedOn(Deviation.STATEMENT_VISIBILITY, writesAlike).requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS));
        m.put(IsolationLevel.READ_COMMITTED, LevelSemantics.permits(DOCS).basedOn(Deviation.STATEMENT_VISIBILITY, writesAlike)
                .requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS));
        // Derby's RS: read locks kept to commit, but no range locks (phantoms).
        m.put(IsolationLevel.REPEATABLE_READ, LevelSemantics.permits(DOCS).basedOn(Deviation.STATEMENT_VISIBILITY, writesAlike)
                .requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS));
        // Derby's RR: strict two-phase locking with range locks.
        m.put(IsolationLevel.SERIALIZABLE, LevelSemantics.strict(DOCS));
        return new Profile(m);
    }

    /**
     * By SQLState (Derby's vendor code is the error's severity: 20000 statement, 30000 transaction
     * rolled back, 40000 session closed, 45000 database shut down, 50000 system):
     * <pre>
     *  40001          DEADLOCK (victim; whole transaction rolled back)
     *  40XL1, 40XL2   LOCK_TIMEOUT (whole transaction rolled back)
     *  XJ001          INTERNAL ("Java exception": an exception from inside the engine), except a
     *                 wrapped ShutdownException (the database shut down under the statement): CONNECTION_LOST
     *  40XD*, 40XT*, XS*, XB*   INTERNAL (store, raw transaction, boot, generated-code errors)
     *  08xxx, XJ004, XJ015, severity >= 40000   CONNECTION_LOST
     *  23xxx CONSTRAINT, 22xxx DATA, 42xxx and 0A000 INVALID_STATEMENT
     * </pre>
     */
    @Override
    public ErrorClass classify(SQLException e) {
        String state = e.getSQLState();
        if (state == null) {
            return ErrorClass.OTHER;
        }
        switch (state) {
            case "40001":
                return ErrorClass.DEADLOCK;
            case "40XL1", "40XL2":
                return ErrorClass.LOCK_TIMEOUT;
            case "XJ001":
                // a statement that was running while its database shut down gets a wrapped ShutdownException
                return mentions(e, "ShutdownException") ? ErrorClass.CONNECTION_LOST : ErrorClass.INTERNAL;
            case "XJ004", "XJ015":
                return ErrorClass.CONNECTION_LOST;
            default:
                break;
        }
        if (state.startsWith("40XD") || state.startsWith("40XT") || state.startsWith("XS") || state.startsWith("XB")) {
            return ErrorClass.INTERNAL;
        }
        if (state.startsWith("08") || e.getErrorCode() >= 40000) {
            return ErrorClass.CONNECTION_LOST;
        }
        if (state.startsWith("40")) {
            return ErrorClass.OTHER; // 40XC0 "dead statement" and kin
        }
        ErrorClass standard = SqlStates.byStandardClass(e);
        return standard != null ? standard : ErrorClass.OTHER;
    }

    /** Whether {@code text} appears in the message of {@code e} or of any of its causes. */
    private static boolean mentions(Throwable e, String text) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (String.valueOf(t.getMessage()).contains(text) || t.getClass().getName().contains(text)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Derby rolls the whole transaction back for every error of transaction severity: a deadlock
     * victim (40001) and a lock timeout (40XL1) alike; the executor's ROLLBACK is then a no-op.
     * Constraint, data and syntax errors undo only their statement. (Also: changing the isolation
     * level commits the open transaction — connect() sets it in autocommit mode, before any.)
     */
    @Override
    public AbortScope abortScope(ErrorClass c) {
        return c == ErrorClass.LOCK_TIMEOUT ? AbortScope.TRANSACTION : Engine.super.abortScope(c);
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        return List.of(
                "CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.locks.waitTimeout', '" + WAIT_TIMEOUT_S + "')",
                "CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.locks.deadlockTimeout', '" + DEADLOCK_TIMEOUT_S + "')",
                "SET SCHEMA " + SCHEMA,
                "SET ISOLATION " + derbyLevel(level));
    }

    /** Derby has no BEGIN: in ij a transaction is opened by turning autocommit off (an ij command). */
    @Override
    public String beginSql() {
        return "AUTOCOMMIT OFF";
    }

    /** Derby's own names: UR, CS, RS, RR (Derby's RR is SERIALIZABLE, its RS is REPEATABLE READ). */
    static String derbyLevel(IsolationLevel level) {
        return switch (level) {
            case READ_UNCOMMITTED -> "UR";
            case READ_COMMITTED -> "CS";
            case REPEATABLE_READ -> "RS";
            case SERIALIZABLE -> "RR";
            default -> throw new IllegalArgumentException("Derby has no isolation level " + level);
        };
    }
}
