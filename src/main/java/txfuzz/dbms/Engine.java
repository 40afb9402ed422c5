package txfuzz.dbms;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import txfuzz.model.IsolationLevel;

/**
 * The static description of one DBMS: everything txfuzz knows about it without starting it — its
 * command-line name, the version it would use by default, isolation levels, modes, dialect, the
 * documented behaviour per mode, error classification and abort scope, how a session is set up in
 * the engine's own client. {@link #open} makes the live part, a {@link Target}, which delegates all
 * of this back here (a live server may refine it: MariaDB reached by --url may be MySQL).
 *
 * <p>Nothing here may start a server or an embedded engine: {@code txfuzz targets} and
 * {@code txfuzz check --dbms} use only descriptions.
 */
public interface Engine {
    /** Short name used on the command line, e.g. "h2". */
    String name();

    /**
     * The version txfuzz uses when not told otherwise: the bundled driver's or server's, known
     * without starting anything (e.g. "H2 2.3.232 (2024-08-11)", "PostgreSQL 15.10"). The live
     * {@link Target#version()} is what the engine itself reports.
     */
    String defaultVersion();

    /**
     * Where versions of it are published on Maven Central: an in-process engine's driver jar (which
     * {@code --version} loads), a server's binaries (listed only). Empty: none.
     */
    default java.util.Optional<txfuzz.dbms.versions.MavenArtifact> artifact() {
        return java.util.Optional.empty();
    }

    /**
     * Where the engine's project publishes the release notes of the release a Maven version of {@link #artifact()}
     * gives (a link, as the profiles cite the manual); empty when it publishes none txfuzz knows of. Reports link
     * them at a version boundary; txfuzz quotes no line from them.
     */
    default java.util.Optional<String> releaseNotes(String mavenVersion) {
        return java.util.Optional.empty();
    }

    /** Whether txfuzz reaches it as a server (started from Maven artifacts, or by --url); else it runs in process. */
    default boolean server() {
        return false;
    }

    /** Levels the engine offers, weakest first. */
    List<IsolationLevel> isolationLevels();

    default IsolationLevel defaultIsolationLevel() {
        return isolationLevels().contains(IsolationLevel.READ_COMMITTED) ? IsolationLevel.READ_COMMITTED : isolationLevels().get(0);
    }

    /** Concurrency-control modes; the first is the default. Most engines have only "default". */
    default List<String> modes() {
        return List.of("default");
    }

    Dialect dialect();

    /**
     * The settings a subject may give it ({@code h2+MODE=PostgreSQL}), each with how it is applied and
     * its manual page; {@link #open} applies those in {@link TargetOptions#settings()}. Default: none.
     */
    default List<EngineSetting> settings() {
        return List.of();
    }

    Profile profile();

    /**
     * The standard promise {@code level} keeps in {@code mode}, with the manual's page: what pairs levels across subjects.
     * Default: the promise of the level's name, as the profile's reference documents it. Engines whose levels keep
     * another promise than their names say override this.
     */
    default LevelPromise promise(IsolationLevel level, String mode) {
        return new LevelPromise(Promise.named(level), profile(mode).at(level).reference());
    }

    /** What the engine documents in {@code mode}; engines whose semantics depend on the mode override this. */
    default Profile profile(String mode) {
        return profile();
    }

    /**
     * The mode a session of a case run in {@code mode} is in once it has run its own {@code settings} (a case's
     * {@code transactions[].settings}, those the engine took): its profile is that mode's. Default: {@code mode}, settings
     * change nothing the profile knows.
     */
    default String sessionMode(String mode, List<String> settings) {
        return mode;
    }

    ErrorClass classify(SQLException e);

    /** What an error of class {@code c} did to its transaction; the executor sends ROLLBACK for TRANSACTION. */
    default AbortScope abortScope(ErrorClass c) {
        return switch (c) {
            case DEADLOCK, SERIALIZATION, BUSY, IN_FAILED_TRANSACTION, CONNECTION_LOST, INTERNAL -> AbortScope.TRANSACTION;
            default -> AbortScope.STATEMENT;
        };
    }

    /**
     * How long after a lock wait begins the engine may still end a cycle of waits it can see (its deadlock detection):
     * the executor calls a run stalled once every transaction has waited this long, and a grace, with no answer. Empty
     * when unknown or set per server: the executor's stall timeout applies.
     */
    default java.util.Optional<java.time.Duration> deadlockDetectionDelay() {
        return java.util.Optional.empty();
    }

    /**
     * Whether a statement waiting for a lock ignores {@link java.sql.Statement#cancel()} and ends its wait only when
     * its thread is interrupted (an in-process engine waiting in {@link Object#wait}): the executor then interrupts a
     * stalled statement it cancels, rather than giving it up seconds later.
     */
    default boolean lockWaitEndsOnInterrupt() {
        return false;
    }

    /** SQL a user runs in the engine's own client to set up a session like ours (for reproduce.sql). */
    List<String> sessionSetupSql(IsolationLevel level, String mode);

    /** How BEGIN is spelt in the engine's own client. */
    default String beginSql() {
        return "BEGIN";
    }

    /** How BEGIN is spelt in the engine's own client in {@code mode}. */
    default String beginSql(String mode) {
        return beginSql();
    }

    /**
     * Other ways the engine's SQL opens a transaction, each run after the session has opened one as
     * for BEGIN (e.g. MariaDB's START TRANSACTION WITH CONSISTENT SNAPSHOT, which takes the snapshot
     * at once rather than at the first read). Default: none beyond BEGIN.
     */
    default List<String> beginVariants() {
        return List.of();
    }

    /**
     * BEGIN forms an imported schedule may use beyond {@link #beginVariants()}: ones txfuzz does not generate, since a
     * generated transaction writes (PostgreSQL's BEGIN READ ONLY). Default: none.
     */
    default List<String> importedBeginVariants() {
        return List.of();
    }

    /**
     * The mode (one of {@link #modes()}) a transaction opened by {@code begin} runs in, where the engine's modes are BEGIN
     * forms (SQLite's BEGIN DEFERRED / IMMEDIATE); empty where BEGIN names no mode. Read by the importer, never generated.
     */
    default java.util.Optional<String> modeOfBegin(String begin) {
        return java.util.Optional.empty();
    }

    /**
     * Whether {@code statement}, run inside an open transaction, commits that transaction first, as the engine documents
     * (MariaDB's and MySQL's implicit commit of BEGIN, START TRANSACTION and DDL). Default: no statement does.
     */
    default boolean commitsOpenTransaction(String statement) {
        return false;
    }

    /**
     * What the executor runs in the transaction the session has just opened (autocommit off) to give it what BEGIN
     * variant {@code variant} adds: the variant itself by default (MariaDB's START TRANSACTION WITH CONSISTENT
     * SNAPSHOT takes its snapshot then).
     */
    default String inOpenTransaction(String variant) {
        return variant;
    }

    /** Quotes an identifier if needed; generated identifiers are plain lower case. */
    default String quote(String identifier) {
        return identifier;
    }

    /** See {@link Target#dropKeyConstraints}. Default: the engine keeps them. */
    default void dropKeyConstraints(Connection c) throws SQLException {
    }

    /**
     * Whether {@code sql}, a single-table UPDATE or DELETE of {@code table} naming it {@code name} (its alias,
     * if any), reads that table first and in the order of the key its rows are stored in (the PRIMARY KEY,
     * or {@link #clusteredKey}) in the plan the engine makes on {@code c}'s data; empty when the engine
     * cannot tell ({@link Deviation#LOCKING_SCAN_IN_KEY_ORDER} then does not apply). Default: cannot tell.
     */
    default java.util.Optional<Boolean> scansInClusteredKeyOrder(Connection c, String sql, String table, String name) throws SQLException {
        return java.util.Optional.empty();
    }

    /**
     * Where {@code sql}, a single-table UPDATE or DELETE of {@code table} naming it {@code name}, reads that table first
     * through a secondary index in the plan the engine makes on {@code c}'s data: that index's columns in its order, then
     * the columns of the key the rows are stored in (none when a hidden row id orders them), the order the index keeps
     * its entries in. Empty when the plan reads no secondary index first, or the engine cannot tell the index's order
     * (a descending or prefix column). Default: cannot tell.
     */
    default java.util.Optional<List<String>> secondaryIndexScanOrder(Connection c, String sql, String table, String name) throws SQLException {
        return java.util.Optional.empty();
    }

    /**
     * The columns, in order, of the key {@code table}'s rows are stored in, as the engine itself reports it on
     * {@code c} (InnoDB's clustered index: the PRIMARY KEY, else a UNIQUE index whose columns are all NOT NULL);
     * an empty list when it orders them by a hidden row id even though the table has a PRIMARY KEY (H2's composite or
     * non-integer keys); empty when the engine cannot tell, or orders the rows by no column and the table has no
     * PRIMARY KEY (InnoDB's hidden row id). Default: cannot tell (the PRIMARY KEY from JDBC metadata is used).
     */
    default java.util.Optional<List<String>> clusteredKey(Connection c, String table) throws SQLException {
        return java.util.Optional.empty();
    }

    /**
     * Where the engine takes its snapshots table by table ({@link Deviation#TABLE_SNAPSHOTS}): for each table of the
     * database {@code c} is connected to (lower case), the other tables whose snapshot a statement that reads it takes
     * too. Default: none, each table's snapshot is its own.
     */
    default java.util.Map<String, java.util.Set<String>> snapshotsTakenWith(Connection c) throws SQLException {
        return java.util.Map.of();
    }

    /**
     * A query that reads every row of {@code quotedTable}, a table with no clustered key (no {@link #clusteredKey}
     * columns, or none reported and no PRIMARY KEY), in the order the engine stores and scans such a table in, when that
     * order is insertion order (InnoDB, H2: a hidden row id that grows with each insert); empty when the engine has no such
     * order. Then a scan of such a table walks its rows in insertion order ({@link Deviation#LOCKING_SCAN_IN_KEY_ORDER},
     * {@link Deviation#DIRTY_SCAN_IN_KEY_ORDER}).
     */
    default java.util.Optional<String> insertionOrderRead(String quotedTable) {
        return java.util.Optional.empty();
    }

    /**
     * A locking read of {@code column} over every row of {@code quotedTable} that passes, without waiting, the rows another
     * session holds locked: what it leaves out is what other sessions hold ({@link Deviation#LOCKING_SCAN_WITH_LOCKS_KEPT_ON_UNMATCHED_ROWS}
     * asks it so). Empty where the engine has none. The read scans the table's stored order, not a secondary index.
     */
    default java.util.Optional<String> lockedRowsSkippingRead(String quotedTable, String column) {
        return java.util.Optional.empty();
    }

    /**
     * The live part: starts the engine (or the server; or connects to {@code options.url()}).
     * IllegalArgumentException saying what is wrong with {@code options}.
     */
    Target open(TargetOptions options);

    /** The form its own test suite takes concurrency tests in, which a finding is also written in; empty: none (a JDBC program only). */
    default java.util.Optional<RegressionTestFormat> regressionTestFormat() {
        return java.util.Optional.empty();
    }

    /**
     * How a program outside txfuzz opens a private database of this engine as txfuzz's target does
     * (for a finding's {@code Repro.java}); empty for servers, whose findings get their own test formats.
     */
    default java.util.Optional<StandaloneJdbc> standaloneJdbc() {
        return java.util.Optional.empty();
    }

    /**
     * {@code settings} in this engine's spellings, in order; IllegalArgumentException naming the
     * settings it knows for one it does not, or the values a setting takes for a value it does not.
     */
    static java.util.Map<String, String> checkSettings(Engine engine, java.util.Map<String, String> settings) {
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        settings.forEach((k, v) -> {
            EngineSetting s = engine.settings().stream().filter(x -> x.named(k)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown setting '" + k + "' for " + engine.name() + "; it takes "
                            + (engine.settings().isEmpty() ? "none" : String.join(", ", engine.settings().stream().map(EngineSetting::key).toList()))));
            out.put(s.key(), s.accept(v).orElseThrow(() -> new IllegalArgumentException("setting " + s.key() + " of " + engine.name()
                    + " takes " + s.valuesText() + ", not '" + v + "'")));
        });
        return out;
    }

    /** For in-process engines: they take no server options. */
    static void requireNoServerOptions(String name, TargetOptions options) {
        if (options != null && !options.isEmpty()) {
            throw new IllegalArgumentException(name + " runs in process: --url, --user and --server-home do not apply to it");
        }
    }

    /**
     * An in-process engine's JDBC driver for {@code url}: the bundled one, or the version
     * {@code options} asks for, loaded on its own (see {@link txfuzz.dbms.versions.EngineDrivers}).
     */
    static Jdbc inProcessDriver(Engine engine, TargetOptions options, String url) {
        requireNoServerOptions(engine.name(), options);
        String version = options == null ? null : options.version();
        return txfuzz.dbms.versions.EngineDrivers.driver(engine.name(), engine.artifact().orElseThrow(), version, url);
    }
}
