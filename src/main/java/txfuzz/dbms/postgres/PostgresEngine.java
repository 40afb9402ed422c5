package txfuzz.dbms.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.history.Anomaly;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Profile;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Engine;
import txfuzz.dbms.TargetOptions;

/** PostgreSQL as txfuzz knows it without starting a server (levels, dialect of the bundled version, the manual's profile, SQLState classification); {@link PostgresTarget} is the live part. */
public final class PostgresEngine implements Engine {
    /**
     * The manual of PostgreSQL {@code major} (its pages are versioned by major release, e.g. docs/18/), so that a
     * finding cites what the version under test documents, not another release's page.
     */
    static String manual(int major) {
        return "https://www.postgresql.org/docs/" + major + "/";
    }

    /** The chapter "Transaction Isolation" of the manual of {@code major}. */
    static String isolationChapter(int major) {
        return manual(major) + "transaction-iso.html";
    }

    /**
     * READ COMMITTED per statement, as the manual documents it: 13.2.1 (UPDATE, DELETE, MERGE re-check;
     * ON CONFLICT; "INSERT with an ON CONFLICT DO NOTHING clause may have insertion not proceed for a row
     * due to the outcome of another transaction whose effects are not visible to the INSERT snapshot"),
     * and the MERGE (PostgreSQL 15 and later) and INSERT reference pages.
     */
    static String readCommittedDocs(int major) {
        return isolationChapter(major) + "#XACT-READ-COMMITTED" + (major >= 15 ? ", " + manual(major) + "sql-merge.html" : "")
                + ", " + manual(major) + "sql-insert.html#SQL-ON-CONFLICT";
    }

    /** The major release of the bundled binaries (the version a profile asked without a server describes). */
    static int bundledMajor() {
        return Integer.parseInt(Binaries.bundled().version().split("\\.")[0]);
    }

    @Override
    public String defaultVersion() {
        return "PostgreSQL " + Binaries.bundled().version();
    }

    /** The binaries txfuzz starts the server from (listed by 'txfuzz targets --versions'). */
    @Override
    public java.util.Optional<txfuzz.dbms.versions.MavenArtifact> artifact() {
        return java.util.Optional.of(Binaries.ARTIFACT);
    }

    /** The binaries 15.18.0 are PostgreSQL 15.18 (9.6.24.0: 9.6.24), whose notes are https://www.postgresql.org/docs/release/15.18/. */
    @Override
    public java.util.Optional<String> releaseNotes(String mavenVersion) {
        String[] parts = mavenVersion.split("\\.");
        if (parts.length < 2 || !mavenVersion.matches("[0-9]+(\\.[0-9]+)*")) {
            return java.util.Optional.empty();
        }
        int kept = Integer.parseInt(parts[0]) >= 10 ? 2 : Math.min(3, parts.length);
        return java.util.Optional.of("https://www.postgresql.org/docs/release/" + String.join(".", java.util.Arrays.copyOf(parts, kept)) + "/");
    }

    @Override
    public boolean server() {
        return true;
    }

    /** A server txfuzz starts, or the one at {@code options.url()}. */
    @Override
    public Target open(TargetOptions options) {
        return new PostgresTarget(this, options);
    }

    /** The planner's method switches, session settings a SET changes (https://www.postgresql.org/docs/current/runtime-config-query.html). */
    @Override
    public List<txfuzz.dbms.EngineSetting> settings() {
        String manual = "https://www.postgresql.org/docs/current/runtime-config-query.html#RUNTIME-CONFIG-QUERY-ENABLE";
        return java.util.stream.Stream.of("enable_seqscan", "enable_indexscan", "enable_indexonlyscan", "enable_bitmapscan", "enable_hashjoin",
                        "enable_mergejoin", "enable_nestloop")
                .map(k -> txfuzz.dbms.EngineSetting.oneOf(k, "session setting SET " + k + " = …", manual, "SET " + k + " = %s", "on", "off")).toList();
    }

    /** Concurrency tests are isolation-tester specs (src/test/isolation/specs). */
    @Override
    public java.util.Optional<txfuzz.dbms.RegressionTestFormat> regressionTestFormat() {
        return java.util.Optional.of(txfuzz.dbms.RegressionTestFormat.ISOLATION_TESTER_SPEC);
    }

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ, IsolationLevel.SERIALIZABLE);
    }

    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.JOIN_FULL, Feature.FOR_UPDATE, Feature.FOR_SHARE, Feature.INSERT_ON_CONFLICT,
                Feature.DELETE_RETURNING));
        f.add(Feature.MERGE); // PostgreSQL 15 and later; a live target on an older server takes it out
        return new Dialect("postgres", f, "DOUBLE PRECISION", "VARCHAR(10)");
    }

    @Override
    public void dropKeyConstraints(Connection c) throws SQLException {
        List<String> drops = new java.util.ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT conrelid::regclass::text, quote_ident(conname) "
                + "FROM pg_constraint WHERE connamespace = current_schema()::regnamespace AND contype IN ('f', 'u', 'p') "
                + "ORDER BY contype = 'f' DESC")) {
            while (rs.next()) {
                drops.add("ALTER TABLE " + rs.getString(1) + " DROP CONSTRAINT IF EXISTS " + rs.getString(2) + " CASCADE");
            }
        }
        try (Statement s = c.createStatement()) {
            for (String sql : drops) {
                s.execute(sql);
            }
            List<String> indexes = new java.util.ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT i.indexrelid::regclass::text FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid "
                    + "WHERE t.relnamespace = current_schema()::regnamespace AND i.indisunique")) {
                while (rs.next()) {
                    indexes.add(rs.getString(1));
                }
            }
            for (String index : indexes) {
                s.execute("DROP INDEX IF EXISTS " + index);
            }
        }
    }

    /**
     * What the PostgreSQL manual, chapter "Transaction Isolation", documents:
     * <ul>
     * <li>READ COMMITTED (13.2.1): each statement sees a snapshot of the data committed before it
     *     began; an UPDATE, DELETE, SELECT FOR UPDATE or MERGE that finds a chosen row being changed
     *     waits, then re-evaluates its WHERE (MERGE: its join and actions, "starting from the first
     *     action"; a row deleted meanwhile goes to NOT MATCHED) on the row's newest version
     *     (EvalPlanQual) without seeing rows inserted meanwhile; INSERT's SELECT reads the snapshot while
     *     its unique check and ON CONFLICT arbitration see the newest committed rows ("the UPDATE clause
     *     will affect that row, even though possibly no version of that row is conventionally visible to
     *     the command"); no predicate locks. → {@link Deviation#STATEMENT_SNAPSHOT_WITH_RECHECK}.</li>
     * <li>REPEATABLE READ: one snapshot from the transaction's first statement; a write to a row a
     *     concurrent transaction changed and committed fails with 40001; write skew is allowed
     *     (snapshot isolation). → transaction snapshot.</li>
     * <li>SERIALIZABLE: SSI; the committed transactions are equivalent to some serial order, which
     *     need not be their commit order (a reader may be ordered before a writer that committed
     *     first; WriteCheck footnote 4). → some serial order; reads are not compared with the
     *     commit-order replay.</li>
     * </ul>
     */
    /** REPEATABLE READ is snapshot isolation ("this level is different from Read Committed … a snapshot as of the start of the first statement"). */
    @Override
    public txfuzz.dbms.LevelPromise promise(IsolationLevel level, String mode) {
        return level == IsolationLevel.REPEATABLE_READ
                ? new txfuzz.dbms.LevelPromise(txfuzz.dbms.Promise.SNAPSHOT_ISOLATION, "https://www.postgresql.org/docs/current/transaction-iso.html#XACT-REPEATABLE-READ")
                : txfuzz.dbms.Engine.super.promise(level, mode);
    }

    @Override
    public Profile profile() {
        return profile(bundledMajor());
    }

    /** The profile with the manual of PostgreSQL {@code major} cited (the server's own release; {@link PostgresTarget}). */
    Profile profile(int major) {
        String docs = isolationChapter(major);
        Map<IsolationLevel, LevelSemantics> m = new EnumMap<>(IsolationLevel.class);
        m.put(IsolationLevel.READ_COMMITTED, LevelSemantics.permits(readCommittedDocs(major)).basedOn(Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK,
                        new txfuzz.dbms.Basis.Documented("If the first updater commits, the second updater will ignore the row if the first updater"
                                + " deleted it, otherwise it will attempt to apply its operation to the updated version of the row. The search"
                                + " condition of the command (the WHERE clause) is re-evaluated to see if the updated version of the row still"
                                + " matches the search condition. [...] Because of the above rules, it is possible for an updating command to"
                                + " see an inconsistent snapshot: it can see the effects of concurrent updating commands on the same rows it is"
                                + " trying to update, but it does not see effects of those commands on other rows in the database.",
                                readCommittedDocs(major)))
                .requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS)
                // the manual's "does not see effects of those commands on other rows": the WHERE is re-evaluated with "the same
                // rows from these relations that were joined to the locked rows" (src/backend/executor/README, "EvalPlanQual"),
                // so a subquery turned into a join is not run again
                .recheckingSubqueries(Deviation.RecheckedSubqueries.JOINED_ROWS_KEPT));
        // Repeatable Read is snapshot isolation: "serialization anomalies" such as write skew are permitted
        // (the manual's 13.2.2 and 13.2.3 examples; Hermitage: G2-item allowed).
        m.put(IsolationLevel.REPEATABLE_READ, LevelSemantics.permits(docs + "#XACT-REPEATABLE-READ").basedOn(Deviation.TRANSACTION_SNAPSHOT,
                        new txfuzz.dbms.Basis.Documented("a query in a repeatable read transaction sees a snapshot as of the start of the first"
                                + " non-transaction-control statement in the transaction, not as of the start of the current statement within the"
                                + " transaction", docs + "#XACT-REPEATABLE-READ"))
                .documenting(docs + "#XACT-REPEATABLE-READ (\"this view will not necessarily always be consistent with some serial (one at a"
                                + " time) execution of concurrent transactions of the same level\": serialization anomalies such as write skew)",
                        Anomaly.WRITE_SKEW, Anomaly.G2_ITEM, Anomaly.G2)
                // "a repeatable read transaction cannot modify or lock rows changed by other transactions after
                // the repeatable read transaction began" (40001); ON CONFLICT arbitrates on the newest index entries
                .requiring(Deviation.Precondition.FIRST_COMMITTER_WINS).arbitratingUpserts(Deviation.UpsertArbitration.LATEST_COMMITTED));
        m.put(IsolationLevel.SERIALIZABLE, LevelSemantics.permits(docs + "#XACT-SERIALIZABLE").basedOn(Deviation.SOME_SERIAL_ORDER,
                new txfuzz.dbms.Basis.Documented("any concurrent execution of a set of Serializable transactions is guaranteed to produce the"
                        + " same effect as running them one at a time in some order", docs)));
        return new Profile(m);
    }

    /**
     * By SQLState (PostgreSQL reports no vendor codes):
     * <pre>
     *  40001 serialization_failure            SERIALIZATION (RR write conflict, SSI abort)
     *  40P01 deadlock_detected                DEADLOCK
     *  40002, 23xxx, 44000 integrity          CONSTRAINT
     *  25P02 in_failed_sql_transaction        IN_FAILED_TRANSACTION
     *  22xxx data, 21000 cardinality          DATA (e.g. 22012 division by zero, 21000 a scalar
     *                                          subquery or ON CONFLICT DO UPDATE meeting two rows)
     *  42xxx, 0A000, 3D000, 3F000, 34000, 26000, 2BP01, 25001, 25006   INVALID_STATEMENT
     *  55P03 lock_not_available               LOCK_TIMEOUT (lock_timeout is 0, so not expected)
     *  08xxx connection, 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now,
     *  57P04 database_dropped                 CONNECTION_LOST
     *  XX000 internal_error, XX001 data_corrupted, XX002 index_corrupted, 58xxx system error,
     *  53200 out_of_memory                    INTERNAL
     *  57014 query_canceled (txfuzz cancels to break a stall), everything else   OTHER
     * </pre>
     */
    @Override
    public ErrorClass classify(SQLException e) {
        return classifyState(e.getSQLState());
    }

    static ErrorClass classifyState(String state) {
        if (state == null || state.length() != 5) {
            return ErrorClass.OTHER;
        }
        switch (state) {
            case "40001":
                return ErrorClass.SERIALIZATION;
            case "40P01":
                return ErrorClass.DEADLOCK;
            case "40002", "44000":
                return ErrorClass.CONSTRAINT;
            case "25P02":
                return ErrorClass.IN_FAILED_TRANSACTION;
            case "21000":
                return ErrorClass.DATA;
            case "0A000", "3D000", "3F000", "34000", "26000", "2BP01", "25001", "25006":
                return ErrorClass.INVALID_STATEMENT;
            case "55P03":
                return ErrorClass.LOCK_TIMEOUT;
            case "57P01", "57P02", "57P03", "57P04":
                return ErrorClass.CONNECTION_LOST;
            case "53200":
                return ErrorClass.INTERNAL;
            default:
                break;
        }
        return switch (state.substring(0, 2)) {
            case "XX", "58" -> ErrorClass.INTERNAL;
            case "40", "25", "0A" -> ErrorClass.OTHER; // the ones PostgreSQL defines in these classes are named above
            default -> {
                ErrorClass standard = SqlStates.byStandardClass(state);
                yield standard != null ? standard : ErrorClass.OTHER;
            }
        };
    }

    static boolean isConnectionError(SQLException e) {
        return classifyState(e.getSQLState()) == ErrorClass.CONNECTION_LOST;
    }

    /**
     * Every error inside an explicit transaction aborts it: PostgreSQL refuses every later statement
     * with 25P02 until ROLLBACK. (An autocommit statement's error ends only that statement; the
     * executor does not ask about those.)
     */
    @Override
    public AbortScope abortScope(ErrorClass c) {
        return AbortScope.TRANSACTION;
    }

    /** The standard's spelling of BEGIN; PostgreSQL treats both alike. */
    @Override
    public List<String> beginVariants() {
        return List.of("START TRANSACTION");
    }

    /** A read-only transaction (the isolation tester's receipt-report.spec): imported, never generated. */
    @Override
    public List<String> importedBeginVariants() {
        return List.of("BEGIN READ ONLY", "START TRANSACTION READ ONLY");
    }

    /**
     * The driver has already sent BEGIN when the variant runs, and a second BEGIN only warns: READ ONLY is given with SET
     * TRANSACTION, which must come before the transaction's first query
     * (<a href="https://www.postgresql.org/docs/current/sql-set-transaction.html">SET TRANSACTION</a>).
     */
    @Override
    public String inOpenTransaction(String variant) {
        return variant.toUpperCase(java.util.Locale.ROOT).endsWith("READ ONLY") ? "SET TRANSACTION READ ONLY" : variant;
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        return List.of("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + checkLevel(level).sql(),
                "SET lock_timeout = 0", "SET statement_timeout = 0");
    }

    IsolationLevel checkLevel(IsolationLevel level) {
        if (!isolationLevels().contains(level)) {
            throw new IllegalArgumentException("PostgreSQL has no isolation level " + level + " here; it offers " + isolationLevels()
                    + (level == IsolationLevel.READ_UNCOMMITTED ? " (it runs READ UNCOMMITTED as READ COMMITTED)" : ""));
        }
        return level;
    }

    static void checkMode(String mode) {
        if (mode != null && !mode.equals("default")) {
            throw new IllegalArgumentException("PostgreSQL has no mode '" + mode + "'; it has [default]");
        }
    }
}
