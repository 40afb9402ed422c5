package txfuzz.dbms.duckdb;

import java.sql.Connection;
import java.sql.SQLException;
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
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Profile;
import txfuzz.dbms.Target;
import txfuzz.dbms.Engine;
import txfuzz.dbms.TargetOptions;

/** DuckDB as txfuzz knows it without starting it; {@link DuckdbTarget} is the live part. */
public final class DuckdbEngine implements Engine {
    static final String DOCS = "https://duckdb.org/docs/stable/connect/concurrency";
    static final String ABORTED = "Current transaction is aborted";

    /**
     * The bundled driver's engine version: the jar says it only in a manifest the runnable jar
     * replaces and in native code, so it is read off the Maven version (1.4.4.0 bundles DuckDB v1.4.4);
     * {@code EngineContractTest} checks it against what the engine reports.
     */
    static String bundledVersion() {
        String maven = txfuzz.dbms.versions.BundledVersions.of("duckdb");
        String[] parts = maven.split("\\.");
        return "v" + (parts.length > 3 ? String.join(".", parts[0], parts[1], parts[2]) : maven);
    }

    @Override
    public String defaultVersion() {
        return "DuckDB " + bundledVersion();
    }

    /** The settings of this engine's target, for a finding's Repro.java. */
    @Override
    public java.util.Optional<txfuzz.dbms.StandaloneJdbc> standaloneJdbc() {
        return java.util.Optional.of(new txfuzz.dbms.StandaloneJdbc("jdbc:duckdb:", null, null, true, true));
    }

    @Override
    public java.util.Optional<txfuzz.dbms.versions.MavenArtifact> artifact() {
        return java.util.Optional.of(new txfuzz.dbms.versions.MavenArtifact("org.duckdb", "duckdb_jdbc"));
    }

    @Override
    public Target open(TargetOptions options) {
        return new DuckdbTarget(this, Engine.inProcessDriver(this, options, DuckdbTarget.URL));
    }

    @Override
    public String name() {
        return "duckdb";
    }

    @Override
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.SNAPSHOT);
    }

    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        // MERGE since 1.4; INSERT ... ON CONFLICT; INSERT OR REPLACE but not REPLACE INTO; no FOR UPDATE.
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.JOIN_FULL, Feature.INSERT_ON_CONFLICT, Feature.MERGE, Feature.DELETE_RETURNING));
        // Foreign keys are left out (measured on 1.4.4). A child row deleted earlier in the same
        // transaction still counts as referencing its parent (DELETE child; DELETE parent fails; the
        // error points to DuckDB's documented FK limitations), so autocommit replays would disagree
        // with transactional runs for no bug. And a concurrent DELETE of a parent and INSERT of its
        // child both commit, leaving an orphan — a real bug, but one every FK case would rediscover.
        f.remove(Feature.FOREIGN_KEY);
        return new Dialect("duckdb", f, "DOUBLE PRECISION", "VARCHAR(10)");
    }

    @Override
    public Profile profile() {
        return new Profile(Map.of(IsolationLevel.SNAPSHOT, LevelSemantics.permits(DOCS, Deviation.TRANSACTION_SNAPSHOT)
                // optimistic concurrency control: a write-write conflict aborts the later writer
                .requiring(Deviation.Precondition.FIRST_COMMITTER_WINS)));
    }

    /**
     * DuckDB's JDBC driver gives neither SQLState nor vendor code; the message starts with the
     * engine's exception type ("Constraint Error: ..."), which is what this goes by:
     * <pre>
     *  TransactionContext: "Current transaction is aborted"  IN_FAILED_TRANSACTION
     *                      "Conflict on ..." / "write-write conflict" / "Failed to commit"  SERIALIZATION
     *                      other (no transaction active, nested BEGIN)  OTHER
     *  Constraint                                              CONSTRAINT
     *  Conversion, Out of Range, Invalid Input, Mismatch Type, Divide by Zero, Decimal, Sequence   DATA
     *  Parser, Syntax, Binder, Catalog, Not implemented, Dependency, Planner, Parameter Not ...,
     *    Unknown Type, Invalid type, Missing Extension, Settings, Invalid Configuration    INVALID_STATEMENT
     *  INTERNAL, NullPointer, Serialization, IO, Index, Executor, Expression, Optimizer,
     *    Scheduler, Stat, Out of Memory                         INTERNAL
     *  FATAL (database invalidated), Connection, "Connection was closed"   CONNECTION_LOST
     * </pre>
     */
    @Override
    public ErrorClass classify(SQLException e) {
        String msg = String.valueOf(e.getMessage()).strip();
        if (msg.contains(ABORTED)) {
            return ErrorClass.IN_FAILED_TRANSACTION;
        }
        if (msg.contains("database has been invalidated") || msg.startsWith("Connection was closed")
                || msg.startsWith("Connection has been closed")) {
            return ErrorClass.CONNECTION_LOST;
        }
        int colon = msg.indexOf(" Error:");
        String type = colon < 0 ? "" : msg.substring(0, colon);
        return switch (type) {
            case "TransactionContext" -> msg.contains("onflict") || msg.contains("Failed to commit")
                    ? ErrorClass.SERIALIZATION : ErrorClass.OTHER;
            case "Constraint" -> ErrorClass.CONSTRAINT;
            case "Conversion", "Out of Range", "Invalid Input", "Mismatch Type", "Divide by Zero", "Decimal", "Sequence" -> ErrorClass.DATA;
            case "Parser", "Syntax", "Binder", "Catalog", "Not implemented", "Dependency", "Planner", "Parameter Not Resolved",
                    "Parameter Not Allowed", "Unknown Type", "Invalid type", "Missing Extension", "Settings",
                    "Invalid Configuration" -> ErrorClass.INVALID_STATEMENT;
            case "INTERNAL", "NullPointer", "Serialization", "IO", "Index", "Executor", "Expression", "Optimizer", "Scheduler",
                    "Stat", "Out of Memory" -> ErrorClass.INTERNAL;
            case "FATAL", "Connection" -> ErrorClass.CONNECTION_LOST;
            default -> ErrorClass.OTHER;
        };
    }

    /**
     * DuckDB aborts the whole transaction on any error raised while a statement executes — a conflict,
     * but also a constraint violation or a data error (measured: the next statement fails with
     * "Current transaction is aborted (please ROLLBACK)" and nothing of the transaction survives).
     * Errors raised before execution (Parser, Binder, Catalog: INVALID_STATEMENT) leave it intact.
     * The aborted transaction stays open until ROLLBACK, which the executor sends for TRANSACTION.
     */
    @Override
    public AbortScope abortScope(ErrorClass c) {
        return switch (c) {
            case CONSTRAINT, DATA -> AbortScope.TRANSACTION;
            default -> Engine.super.abortScope(c);
        };
    }

    /** DuckDB cannot drop a constraint: the keyed tables are made again without their keys ({@link KeylessTables}). */
    @Override
    public void dropKeyConstraints(Connection c) throws SQLException {
        KeylessTables.drop(c);
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        checkLevel(level);
        return List.of("SET threads = 1");
    }

    static void checkLevel(IsolationLevel level) {
        if (level != IsolationLevel.SNAPSHOT) {
            throw new IllegalArgumentException("DuckDB has only SNAPSHOT, not " + level);
        }
    }
}
