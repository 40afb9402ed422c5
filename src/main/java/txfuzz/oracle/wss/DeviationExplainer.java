package txfuzz.oracle.wss;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.StateLoader;
import txfuzz.exec.StateReader;
import txfuzz.exec.Trace;
import txfuzz.model.DbState;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.dbms.Database;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;

/**
 * Tests whether a documented write-order deviation explains a WSS violation, by simulating its {@link Mechanism} on
 * the engine itself; this class is the machinery the mechanisms share (views, effects, the initial state, row
 * identities, update counts), each mechanism's own simulation and words are in its class ({@link Mechanisms}). Each committed write is run, on a fresh database, against exactly the data
 * the deviation says it could see (the initial state plus the effects of what was visible to it);
 * its effect is the rows it removed and added. The effects, applied in the order they happened,
 * must reproduce the actual final state.
 *
 * <p>In the simulation every row carries a hidden identity column, so an effect removes a row
 * version, not just equal values: if two concurrent writes changed the same row version (a lost
 * update), the second effect no longer applies and the violation stays a bug candidate. Where the
 * engine cannot add the column (DuckDB refuses ALTER TABLE on indexed tables), rows are matched by
 * value instead.
 */
final class DeviationExplainer implements AutoCloseable {
    static final String ROW_ID = "txfuzz_rid";
    private static final int SIMULATION_TIMEOUT_S = 5;

    final TestCase testCase;
    final Trace trace;
    final Executor executor;
    final Target target;
    final List<Integer> committed;
    /** What the engine documents at the case's level: the preconditions checked here and how upserts arbitrate. */
    final LevelSemantics semantics;
    private final Map<Integer, Integer> endOf = new HashMap<>();
    /** The mechanisms this case's explanations used, each made once ({@link Mechanisms}). */
    private final Map<Deviation, Mechanism> mechanisms = new java.util.EnumMap<>(Deviation.class);
    private DbState initial;
    /** {@link #snapshotsTakenWith()}'s answer, once asked. */
    private Map<String, java.util.Set<String>> snapshotsTakenWith;
    /** {@link #rowKeys()}'s answer, once asked. */
    private Map<String, List<Integer>> rowKeys;
    /** {@link #snapshotPoints}'s per-table points, once made. */
    private SnapshotPoints tableSnapshotPoints;
    /** Update counts of the statements the current simulation ran, for write-outcome checks. */
    final Map<StmtRef, Long> simulatedCounts = new HashMap<>();
    /** The update count each committed write that succeeded had in the actual run: what a simulation must reproduce. */
    private final Map<StmtRef, Long> actualCounts = new HashMap<>();
    /**
     * What the first simulation of the current explanation that reproduced the final state but not every write's count
     * recorded; it explains the state when no choice of the simulation reproduces both.
     */
    private Recorded stateOnly;
    /**
     * Per write that failed in the run, what it read and what its key check met in the current simulation
     * ({@link #reproducedFailure}). Kept, saved and restored with {@link #simulatedCounts} ({@link Recorded}): both say what
     * the simulation that explained did.
     */
    final Map<StmtRef, KeyCheck> keyChecks = new HashMap<>();

    /** What a simulation recorded of the writes it ran: their counts, and the failed writes' key checks; a copy. */
    private record Recorded(Map<StmtRef, Long> counts, Map<StmtRef, KeyCheck> keyChecks) {
        Recorded {
            counts = new HashMap<>(counts);
            keyChecks = new HashMap<>(keyChecks);
        }
    }

    private Recorded recorded() {
        return new Recorded(simulatedCounts, keyChecks);
    }

    /** Makes {@code r} what the current simulation recorded; none ({@code null}): nothing. */
    private void restore(Recorded r) {
        simulatedCounts.clear();
        keyChecks.clear();
        if (r != null) {
            simulatedCounts.putAll(r.counts());
            keyChecks.putAll(r.keyChecks());
        }
    }

    /**
     * What a write that failed in the run read in a simulation ({@code read}: the view the simulation gives it; with
     * {@code inFlight}, also the views other transactions' writes in flight then allow, {@link InFlightReads}, made from
     * {@code done}, the effects before it, only when its error is asked about), and the data its key check met
     * ({@code committed}): what had committed when it completed, plus what its own transaction's earlier writes did in that
     * simulation.
     */
    record KeyCheck(DbState read, List<Effect> done, boolean inFlight, DbState committed) {
        KeyCheck {
            done = List.copyOf(done);
        }
    }
    /** Whether some statement's effect depends on the keys ({@link #dependsOnKeys}): the database prepared first keeps them. */
    private final boolean anyDependsOnKeys;
    /**
     * Whether the schema declares a foreign key. Dropping the keys drops it too (a key it references cannot go alone), and a
     * foreign key's check is more than a look at the newest data (H2's does not lock the parent row it checks:
     * docs/bugs.md, h2-fk-check-does-not-lock-parent), so such a case keeps or drops its keys as a whole: kept for every
     * statement when one depends on them.
     */
    private final boolean hasForeignKey;
    private static final java.util.regex.Pattern FOREIGN_KEY = java.util.regex.Pattern.compile("\\b(REFERENCES|FOREIGN\\s+KEY)\\b",
            java.util.regex.Pattern.CASE_INSENSITIVE);
    /** An INSERT whose effect depends on the keys: REPLACE, INSERT (OR) IGNORE, INSERT OR REPLACE, ON CONFLICT, ON DUPLICATE KEY. */
    private static final java.util.regex.Pattern KEYED_INSERT = java.util.regex.Pattern.compile(
            "^\\s*(REPLACE\\b|INSERT\\s+(OR\\s+)?IGNORE\\b|INSERT\\s+OR\\s+REPLACE\\b)|\\bON\\s+(CONFLICT|DUPLICATE\\s+KEY)\\b",
            java.util.regex.Pattern.CASE_INSENSITIVE);
    /** Generated keys are compared by position: a simulation allocates other numbers than the run did. */
    final GeneratedKeys keys;
    Boolean withRowIds;
    private long nextRowId;
    /**
     * Tables (lower case) with no clustered key whose rows the engine stores in insertion order ({@code Engine#insertionOrderRead}):
     * their initial identities were given in that order, and later inserts get higher ones, so the identity column is their scan order.
     */
    final Set<String> insertionOrdered = new HashSet<>();
    /** Table (lower case) → its columns before the identity column was added, for INSERTs without a column list. */
    private final Map<String, String> columnLists = new HashMap<>();
    private static final java.util.regex.Pattern INSERT_WITHOUT_COLUMNS = java.util.regex.Pattern.compile(
            "^(\\s*(?:INSERT|REPLACE)\\s+INTO\\s+)(\\w+)(\\s+(?:VALUES|SELECT)\\b)", java.util.regex.Pattern.CASE_INSENSITIVE);

    /** Where the simulations load their views ({@link #effectOn}); closed with the explainer. */
    private final SimulationDatabases simulations;

    DeviationExplainer(TestCase testCase, Trace trace, Executor executor) {
        this.testCase = testCase;
        this.trace = trace;
        this.executor = executor;
        this.target = executor.target();
        this.semantics = target.profile(testCase.mode()).at(testCase.isolation());
        this.committed = SerialSchedule.fcrfsCommitted(trace);
        this.keys = GeneratedKeys.of(testCase, executor.target().dialect());
        this.simulations = new SimulationDatabases(target, testCase, keys.isEmpty());
        this.anyDependsOnKeys = testCase.transactions().stream().flatMap(t -> t.statements().stream()).anyMatch(DeviationExplainer::dependsOnKeys);
        this.hasForeignKey = testCase.setup().stream().anyMatch(sql -> FOREIGN_KEY.matcher(sql).find());
        committed.forEach(t -> endOf.put(t, trace.position(trace.outcome(t).cause())));
        for (int t : committed) {
            for (StmtRef ref : SerialSchedule.effective(testCase, trace, t)) {
                if (testCase.stmt(ref).kind().isWrite()) {
                    trace.executed(ref).filter(e -> !e.result().failed()).ifPresent(e -> actualCounts.put(ref, e.result().updateCount()));
                }
            }
        }
    }


    /**
     * Whether the simulation that last explained the run gave {@code ref} the update count it had in the actual run.
     * A count the simulation did not record is not reproduced: the simulation then says nothing of what the statement
     * reported, and a miscount must not pass for want of one (issue 33 rule 5).
     */
    boolean reproducedCount(StmtRef ref, long actualCount) {
        Long simulated = simulatedCounts.get(ref);
        return simulated != null && simulated == actualCount;
    }

    /**
     * Whether the simulation that last explained the run makes {@code ref}, a write that failed in the run with {@code error},
     * fail so too ({@link #keyChecks}): run on what it may have read there without the case's keys, it fails with that error
     * (a value it computed from what it read breaks a CHECK or a NOT NULL: campaign mariadb-RU-s73-i256, an
     * {@code INSERT … SELECT} that read the row a waiting INSERT had put in before its wait); or it succeeds, and what it
     * changes, applied to the data its key check met, breaks a key with that error. The same error is the same SQLSTATE
     * and, where the SQLSTATE has no subclass (MariaDB's 23000 for every integrity constraint), the same vendor code: a
     * duplicate key does not explain a NULL refused. Its key check meets what had committed, not what was in flight: an
     * engine checks a key another transaction holds uncommitted by waiting for it, so an error at once against an
     * uncommitted key is no behaviour of the level's (h2-multi-row-insert-own-row-duplicate); what the simulation brings is
     * what the statement and its own transaction's earlier writes read (a DELETE that read another transaction's
     * uncommitted delete and so left a row whose key the INSERT after it meets once that transaction rolled back:
     * h2-RU-s106-i1725). A simulation that recorded nothing for it explains no error.
     */
    boolean reproducedFailure(StmtRef ref, txfuzz.exec.StmtResult.EngineError error) throws SQLException, SetupFailedException {
        KeyCheck check = keyChecks.get(ref);
        if (check == null || error == null) {
            return false;
        }
        List<DbState> reads = new ArrayList<>(List.of(check.read()));
        if (check.inFlight() && withRowIds) {
            inFlightReads().alternatives(check.done(), ref, check.read()).forEach(a -> reads.add(a.view()));
        }
        for (DbState read : reads) {
            Optional<SQLException> onWhatItRead = errorOn(read, Optional.of(ref));
            if (onWhatItRead.isPresent()) {
                if (sameError(onWhatItRead.get(), error)) {
                    return true;
                }
                continue;
            }
            Optional<DbState> checked = attemptOn(Optional.of(read), ref).flatMap(d -> d.applyTo(check.committed()));
            if (checked.isPresent() && errorOn(checked.get(), Optional.empty()).filter(e -> sameError(e, error)).isPresent()) {
                return true;
            }
        }
        return false;
    }

    private boolean sameError(SQLException e, txfuzz.exec.StmtResult.EngineError error) {
        String state = e.getSQLState();
        return target.classify(e) == error.errorClass() && state != null && state.equals(error.sqlState())
                && (!state.endsWith("000") || e.getErrorCode() == error.vendorCode());
    }

    /**
     * The error an engine raises on the data {@code view}: with {@code statement}, that statement's, run alone with the
     * case's keys dropped (empty when it succeeds, or when {@code view} cannot be loaded); without, loading {@code view}
     * with the keys kept (empty when its keys hold).
     */
    private Optional<SQLException> errorOn(DbState view, Optional<StmtRef> statement) throws SQLException, SetupFailedException {
        initial();
        boolean dropKeys = statement.isPresent();
        try (SimulationDatabases.Session session = simulations.open(way(dropKeys, withRowIds), simulationPreparation(dropKeys, withRowIds))) {
            Statement s = session.statement();
            s.setQueryTimeout(SIMULATION_TIMEOUT_S);
            try {
                StateLoader.load(target, session.connection(), testCase.tables(), view);
            } catch (SQLException e) {
                return statement.isPresent() ? Optional.empty() : Optional.of(e); // not loadable: the statement's own run says no more
            } catch (RuntimeException e) {
                return Optional.empty(); // not an engine's error: nothing to compare with the run's
            }
            if (statement.isEmpty()) {
                return Optional.empty();
            }
            String sql = testCase.stmt(statement.get()).sql();
            try {
                s.execute(withRowIds ? withColumnList(sql) : sql);
                return Optional.empty();
            } catch (SQLException e) {
                return Optional.of(e);
            }
        } catch (SQLException e) {
            throw new SetupFailedException("cannot rebuild a state for the explanation: " + e.getMessage(), e);
        }
    }

    /**
     * Records, for {@code ref} where it failed in the run, what it may have read in the current simulation ({@code read}, and
     * with {@code inFlight} the views writes in flight allow beside it) and the data its key check met: the writes in
     * {@code done} of its own transaction and of those committed before {@code completed}.
     */
    void recordKeyCheck(List<Effect> done, StmtRef ref, Optional<DbState> read, int completed, boolean inFlight)
            throws SQLException, SetupFailedException {
        if (!failedInActualRun(ref)) {
            return;
        }
        Optional<DbState> committedData = view(done, ref.txn(), completed, false);
        if (read.isEmpty() || committedData.isEmpty()) {
            keyChecks.remove(ref);
            return;
        }
        keyChecks.put(ref, new KeyCheck(read.get(), done, inFlight, committedData.get()));
    }

    /** The update count {@code ref} had in the actual run, where it is a committed write that succeeded. */
    Optional<Long> actualCount(StmtRef ref) {
        return Optional.ofNullable(actualCounts.get(ref));
    }

    /** What other transactions' in-flight writes a dirty reader may have seen ({@link InFlightReads}), made once. */
    InFlightReads inFlightReads() {
        if (inFlightReads == null) {
            inFlightReads = new InFlightReads(this);
        }
        return inFlightReads;
    }

    private InFlightReads inFlightReads;

    /**
     * What {@code ref} does on {@code view} with the keys dropped, run even where it failed in the actual run (what it may
     * have done before it waited, {@link InFlightReads}); the current simulation's counts are left as they were.
     */
    Optional<StateDelta> attemptOn(Optional<DbState> view, StmtRef ref) throws SQLException, SetupFailedException {
        return attemptOn(view, ref, testCase.stmt(ref).sql());
    }

    /** {@link #attemptOn(Optional, StmtRef)} with {@code sql}, a rewriting of {@code ref}'s statement, run in its place. */
    Optional<StateDelta> attemptOn(Optional<DbState> view, StmtRef ref, String sql) throws SQLException, SetupFailedException {
        Long count = simulatedCounts.get(ref);
        try {
            return effectOn(view, List.of(ref), Keys.DROPPED, original -> sql, true);
        } finally {
            if (count == null) {
                simulatedCounts.remove(ref);
            } else {
                simulatedCounts.put(ref, count);
            }
        }
    }

    /** Whether the current simulation gave every committed write that succeeded the update count it had in the actual run. */
    boolean everyCountReproduced() {
        return actualCounts.entrySet().stream().allMatch(e -> e.getValue().equals(simulatedCounts.get(e.getKey())));
    }

    /**
     * Whether a simulation whose effects {@code stateReproduced} the final state explains the run: only when it reproduced
     * every write's count too; one that reproduced the state alone is kept ({@link #stateOnly}) and the search goes on
     * for a choice (a read point, a re-checked row, a serial order) that reproduces both.
     */
    boolean accepted(boolean stateReproduced) {
        if (!stateReproduced) {
            return false;
        }
        if (everyCountReproduced()) {
            return true;
        }
        if (stateOnly == null) {
            stateOnly = recorded();
        }
        return false;
    }

    /** Whether a simulation of the current explanation reproduced the final state but not every count ({@link #accepted}). */
    boolean stateOnlyExplained() {
        return stateOnly != null;
    }

    /**
     * A write with RETURNING (a tracked {@code DELETE … RETURNING rid, wl}) affected as many rows as it
     * returned: its count in the actual run is the same (Session); -1 for a query.
     */
    private static long returnedRows(java.sql.Statement s) throws SQLException {
        long n = 0;
        try (java.sql.ResultSet rs = s.getResultSet()) {
            while (rs.next()) {
                n++;
            }
        }
        return n;
    }

    /**
     * The rule, under {@code deviation}, that reproduces the actual final state, in words; empty if none does. Of the
     * read points that do, the first that also reproduces every write's update count ({@link #reproducedCount} then
     * answers for it); else the first.
     */
    Optional<String> explanation(Deviation deviation) throws SQLException, SetupFailedException {
        return explanation(deviation, Set.of());
    }

    /** As {@link #explanation(Deviation)}, trying the read points in {@code preferred} first (those a manual describes). */
    Optional<String> explanation(Deviation deviation, Set<Deviation.ReadPoint> preferred) throws SQLException, SetupFailedException {
        Mechanism mechanism = mechanisms.computeIfAbsent(deviation, Mechanisms::of);
        Deviation.ReadPoint stateOnlyPoint = null;
        Recorded stateOnlyAt = null;
        List<Deviation.ReadPoint> points = new ArrayList<>(preferred);
        points.sort(null);
        for (Deviation.ReadPoint p : Deviation.ReadPoint.values()) {
            if (!points.contains(p)) {
                points.add(p);
            }
        }
        for (Deviation.ReadPoint p : points) {
            boolean explained = mechanism.readPoints().contains(p) && explains(mechanism, p);
            if (explained && everyCountReproduced()) {
                lastReadPoint = readPointOf(mechanism, p);
                return Optional.of(mechanism.describe(this, p));
            }
            if (explained && stateOnlyPoint == null) {
                stateOnlyPoint = p;
                stateOnlyAt = recorded();
            }
        }
        if (stateOnlyPoint != null) {
            restore(stateOnlyAt);
            lastReadPoint = readPointOf(mechanism, stateOnlyPoint);
            return Optional.of(mechanism.describe(this, stateOnlyPoint));
        }
        lastReadPoint = null;
        return Optional.empty();
    }

    /** The read point of the last explanation {@link #explanation} gave; empty for a deviation that has none to choose. */
    Optional<Deviation.ReadPoint> lastReadPoint() {
        return Optional.ofNullable(lastReadPoint);
    }

    private Deviation.ReadPoint lastReadPoint;

    /** The read point that explained, where it says anything: no write that waited, no difference between read points. */
    private Deviation.ReadPoint readPointOf(Mechanism m, Deviation.ReadPoint p) {
        boolean readPoints = m.readPoints().size() > 1;
        boolean aWriteWaited = writesInCompletionOrder(true).stream().anyMatch(ref -> trace.executed(ref).map(ExecutedStmt::blocked).orElse(false));
        return readPoints && aWriteWaited ? p : null;
    }

    /**
     * Whether the simulation of {@code mechanism} reproduces the final state; its counts stay in {@link #simulatedCounts}:
     * those of a choice that reproduced every count too where one did, else those of the first that reproduced the state.
     */
    private boolean explains(Mechanism mechanism, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        boolean explained;
        restore(null);
        stateOnly = null;
        try {
            explained = mechanism.simulate(this, readPoint);
        } catch (RowIdsUnusable e) {
            // A statement cannot run with the extra column (e.g. INSERT ... SELECT *): simulate again
            // matching rows by value.
            withRowIds = false;
            initial = null;
            restore(null);
            stateOnly = null;
            explained = mechanism.simulate(this, readPoint);
        }
        if (!explained && stateOnly != null) {
            restore(stateOnly);
            explained = true;
        }
        stateOnly = null;
        return explained;
    }

    /** Thrown when the hidden identity column breaks a statement of the case. */
    private static final class RowIdsUnusable extends RuntimeException {
        RowIdsUnusable() {
            super(null, null, false, false);
        }
    }

    /**
     * A write's effect at schedule position {@code position}; {@code ref} and {@code view} (the data it was
     * simulated on) are kept where a later rule needs the rows it matched, not only those it changed.
     */
    record Effect(int position, int txn, StateDelta delta, StmtRef ref, Optional<DbState> view) {
        Effect(int position, int txn, StateDelta delta) {
            this(position, txn, delta, null, Optional.empty());
        }
    }

    /**
     * The write statements of the committed transactions (and, with {@code rolledBackToo}, of those that
     * rolled back) in the order they completed: what the read-point simulations replay. Queries change nothing.
     */
    List<StmtRef> writesInCompletionOrder(boolean rolledBackToo) {
        List<StmtRef> writes = new ArrayList<>();
        for (int txn : committed) {
            writes.addAll(SerialSchedule.effective(testCase, trace, txn));
        }
        if (rolledBackToo) {
            for (int txn : trace.endOrder()) {
                if (!committed.contains(txn)) {
                    writes.addAll(SerialSchedule.effective(testCase, trace, txn));
                }
            }
        }
        writes.removeIf(ref -> !testCase.stmt(ref).kind().isWrite());
        writes.sort((a, b) -> Integer.compare(trace.position(a), trace.position(b)));
        return writes;
    }

    /**
     * The identities of the rows the single-table UPDATE {@code ref} matches on {@code view}, changed or not: the
     * UPDATE run with {@code txfuzz_rid = -1 - txfuzz_rid} put first in its SET list, so that every row it matches
     * changes. Empty when it is not such an UPDATE or does not run so (its effect and update count are left as the
     * plain statement's).
     */
    Optional<Set<String>> matchedRows(Optional<DbState> view, StmtRef ref) throws SQLException, SetupFailedException {
        return matchedRows(view, ref, Keys.IF_UPSERTS);
    }

    /**
     * The rows (by identity) an UPDATE's WHERE matches on {@code view}, its assignments not evaluated
     * ({@link KeyOrderScan#markingOnlyWhatItMatches}); empty without row identities or for another statement.
     */
    Optional<Set<String>> rowsItsWhereMatches(Optional<DbState> view, StmtRef ref) throws SQLException, SetupFailedException {
        return rowsMarkedBy(view, ref, Keys.IF_UPSERTS, KeyOrderScan.markingOnlyWhatItMatches(testCase.stmt(ref).sql(), ROW_ID), false);
    }

    /**
     * The rows (by identity) {@code marking}, a rewriting of {@code ref} that changes each row it selects or locked, changes on
     * {@code view}; run even where {@code ref} failed in the actual run (a failed statement may have kept its locks).
     */
    Optional<Set<String>> rowsMarked(Optional<DbState> view, StmtRef ref, String marking) throws SQLException, SetupFailedException {
        return rowsMarkedBy(view, ref, Keys.DROPPED, Optional.of(marking), true);
    }

    /**
     * The rows (by identity) of {@code table} the engine holds locked once {@code ref} has run, in an open transaction, on
     * {@code view} with the case's keys and indexes: the rows a second session's locking read that skips locked rows
     * ({@link txfuzz.dbms.Engine#lockedRowsSkippingRead}) leaves out. A statement that fails there is asked after too (a failed
     * statement keeps its locks). Empty without row identities, where the engine has no such read, or where the view cannot
     * be loaded or the read fails.
     */
    Optional<Set<String>> rowsHeldAfter(DbState view, StmtRef ref, String table) throws SQLException, SetupFailedException {
        // the rule's forms (subquery reads, dirty or not) ask the same statement on the same data again: one probe each
        List<Object> key = List.of(ref, table, view);
        if (!heldAfter.containsKey(key)) {
            heldAfter.put(key, probedRowsHeldAfter(view, ref, table));
        }
        return heldAfter.get(key);
    }

    /** What {@link #rowsHeldAfter} asked the engine, by statement, table and data. */
    private final Map<List<Object>, Optional<Set<String>>> heldAfter = new HashMap<>();

    private Optional<Set<String>> probedRowsHeldAfter(DbState view, StmtRef ref, String table) throws SQLException, SetupFailedException {
        Optional<String> probe = target.engine().lockedRowsSkippingRead(target.engine().quote(table), ROW_ID);
        initial();
        if (!withRowIds || probe.isEmpty()) {
            return Optional.empty();
        }
        try (SimulationDatabases.Session session = simulations.open(way(false, true), simulationPreparation(false, true))) {
            Connection c = session.connection();
            Statement s = session.statement();
            s.setQueryTimeout(SIMULATION_TIMEOUT_S);
            try {
                StateLoader.load(target, c, testCase.tables(), view);
            } catch (SQLException | RuntimeException e) {
                return Optional.empty();
            }
            c.setAutoCommit(false);
            try {
                try {
                    s.execute(withColumnList(testCase.stmt(ref).sql()));
                } catch (SQLException e) {
                    // failed as in the run or not: what it locked before it failed is what the engine holds
                }
                Set<String> passed = new java.util.HashSet<>();
                try (Connection other = session.another(); Statement o = other.createStatement()) {
                    o.setQueryTimeout(SIMULATION_TIMEOUT_S);
                    other.setAutoCommit(false);
                    try (java.sql.ResultSet rs = o.executeQuery(probe.get())) {
                        while (rs.next()) {
                            passed.add(rs.getString(1));
                        }
                    }
                    other.rollback();
                }
                Set<String> held = new java.util.HashSet<>();
                for (List<String> row : view.tables().getOrDefault(table, List.of())) {
                    String id = row.get(row.size() - 1);
                    if (!passed.contains(id)) {
                        held.add(id);
                    }
                }
                return Optional.of(held);
            } catch (SQLException e) {
                return Optional.empty(); // the engine cannot say
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new SetupFailedException("cannot rebuild a state for the explanation: " + e.getMessage(), e);
        }
    }

    /** {@link #matchedRows(Optional, StmtRef)}, keys as {@code keys} says. */
    Optional<Set<String>> matchedRows(Optional<DbState> view, StmtRef ref, Keys keys) throws SQLException, SetupFailedException {
        return rowsMarkedBy(view, ref, keys, KeyOrderScan.markingEveryMatch(testCase.stmt(ref).sql(), ROW_ID), false);
    }

    /** The rows {@code marked}, {@code ref} rewritten to mark each row it matches, changes on {@code view}; {@code ref}'s count kept. */
    private Optional<Set<String>> rowsMarkedBy(Optional<DbState> view, StmtRef ref, Keys keys, Optional<String> marked, boolean failedToo)
            throws SQLException, SetupFailedException {
        if (!withRowIds || marked.isEmpty()) {
            return Optional.empty();
        }
        Long count = simulatedCounts.get(ref);
        try {
            return effectOn(view, List.of(ref), keys, sql -> marked.get(), failedToo).map(DeviationExplainer::rowIds);
        } finally {
            if (count == null) {
                simulatedCounts.remove(ref);
            } else {
                simulatedCounts.put(ref, count);
            }
        }
    }

    /**
     * Precondition {@link Deviation.Precondition#WRITERS_WAIT_FOR_LOCKED_ROWS}: a write that did not
     * wait changed, on the data its rule says it saw, a row version that a concurrent transaction had
     * changed (or, with dirty reads, written) and not yet committed when the write was submitted. A
     * lock-based engine makes such a write wait; one that did not wait did something else. Checked
     * only with row identities (equal values do not say which row version was meant).
     */
    boolean skippedALockedRow(List<Effect> done, StmtRef ref, ExecutedStmt e, StateDelta delta, int submitted) {
        if (!semantics.requires(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS) || e.blocked() || !withRowIds
                || failedInActualRun(ref)) {
            return false;
        }
        Set<String> mine = rowIds(delta);
        for (Effect other : done) {
            if (other.txn == ref.txn() || other.position >= submitted || endPosition(other.txn) < submitted) {
                continue;
            }
            Set<String> held = rowIds(other.delta);
            other.delta.added().values().forEach(rows -> rows.forEach(r -> held.add(r.get(r.size() - 1))));
            if (held.stream().anyMatch(mine::contains)) {
                return true;
            }
        }
        return false;
    }

    int endPosition(int txn) {
        return trace.position(trace.outcome(txn).cause());
    }

    /** The data a statement of {@code txn} reading at schedule position {@code point} saw; empty if the effects collide. */
    Optional<DbState> view(List<Effect> done, int txn, int point, boolean dirty) throws SQLException, SetupFailedException {
        Optional<DbState> view = Optional.of(initial());
        for (Effect e : done) {
            // an uncommitted write is seen until its transaction ends: one that ended at position p had not ended for a reader
            // submitted when p statements had completed (p itself had not), so it is seen at point p
            boolean visible = e.txn == txn || (dirty
                    ? e.position < point && (committed.contains(e.txn) || endPosition(e.txn) >= point)
                    : committed.contains(e.txn) && endOf.get(e.txn) < point);
            if (visible) {
                view = view.flatMap(e.delta::applyTo);
            }
        }
        return view;
    }

    boolean transactionSnapshot(SnapshotPoints.Rule rule) throws SQLException, SetupFailedException {
        SnapshotPoints points = snapshotPoints(rule);
        return snapshotRunReproduces(points) || aWaitingFirstStatementCommitted() && snapshotRunReproduces(points.withWaitingFirstStatementsRestarted());
    }

    /** Whether a committed transaction's first effective statement waited, with nothing but a BEGIN before it. */
    private boolean aWaitingFirstStatementCommitted() {
        return committed.stream().map(t -> SerialSchedule.effective(testCase, trace, t))
                .anyMatch(body -> !body.isEmpty() && SnapshotPoints.restartable(trace, testCase, body.get(0)));
    }

    private boolean snapshotRunReproduces(SnapshotPoints points) throws SQLException, SetupFailedException {
        Optional<List<SnapshotTxn>> run = snapshotRun(points);
        if (run.isEmpty()) {
            return false;
        }
        List<StateDelta> effects = new ArrayList<>();
        run.get().forEach(t -> t.writes.forEach(w -> effects.add(w.delta)));
        return accepted(reproducesActual(effects));
    }

    /** The rule's snapshot points; per-table ones once per case, since they parse the statements. */
    private SnapshotPoints snapshotPoints(SnapshotPoints.Rule rule) throws SQLException, SetupFailedException {
        if (rule != SnapshotPoints.Rule.PER_TABLE_AT_FIRST_READ) {
            return new SnapshotPoints(testCase, trace, rule);
        }
        if (tableSnapshotPoints == null) {
            tableSnapshotPoints = new SnapshotPoints(testCase, trace, rule, snapshotsTakenWith());
        }
        return tableSnapshotPoints;
    }

    /**
     * Per table, the tables whose per-table snapshot the engine takes with it ({@code Engine#snapshotsTakenWith}), asked of
     * the case's schema once; none when the engine cannot be asked (then each table's snapshot is its own).
     */
    private Map<String, java.util.Set<String>> snapshotsTakenWith() {
        if (snapshotsTakenWith == null) {
            // no foreign key: nothing to ask the engine (a fresh database per case costs)
            snapshotsTakenWith = hasForeignKey ? askedOfSchema(c -> target.engine().snapshotsTakenWith(c), Map.of()) : Map.of();
        }
        return snapshotsTakenWith;
    }

    /** A question to the engine about the case's schema. */
    @FunctionalInterface
    private interface SchemaQuestion<T> {
        T askedOn(Connection c) throws SQLException;
    }

    /** {@code question}'s answer on a fresh database holding the case's schema (its setup run); {@code otherwise} when the engine cannot be asked. */
    private <T> T askedOfSchema(SchemaQuestion<T> question, T otherwise) {
        try (Database db = target.freshDatabase(); Connection c = db.connect(testCase.isolation(), testCase.mode());
             Statement s = c.createStatement()) {
            for (String sql : testCase.setup()) {
                s.execute(sql);
            }
            return question.askedOn(c);
        } catch (SQLException e) {
            return otherwise;
        }
    }

    /** One write of a committed transaction, simulated on the data its rule says it saw. */
    private record StmtSim(StmtRef ref, StateDelta delta, DbState view) {
    }

    /** A committed transaction simulated on its snapshot, write by write. */
    private record SnapshotTxn(int txn, List<StmtSim> writes) {
    }

    /**
     * A documented rule the run broke: the write, a one-line headline and the details.
     *
     * @param write  the write that broke the rule (the later of two, or an upsert that arbitrated on newer data)
     * @param writes every write the break rests on: both of two conflicting writes, whichever ran first, so that one
     *               defect is one cause however the schedule ordered its writes (issue 21 item 2)
     */
    record RuleBreak(StmtRef write, List<StmtRef> writes, String summary, String details) {
        RuleBreak {
            writes = List.copyOf(writes);
        }
    }

    /** The first break of first-committer-wins the last snapshot run met. */
    private RuleBreak firstCommitterBreak;

    /**
     * The committed transactions, in commit order, each simulated write by write on the snapshot the
     * level's rule ({@code points}) says it read each table from, plus its own earlier writes; an
     * INSERT-based upsert at a level whose upserts arbitrate on the newest committed data runs on that
     * instead (PostgreSQL's ON CONFLICT). Along the way, checks first-committer-wins (see
     * {@link #firstCommitterWinsBroken}). Empty when a write fails on the data it is said to have seen,
     * or the effects collide.
     */
    private Optional<List<SnapshotTxn>> snapshotRun(SnapshotPoints points) throws SQLException, SetupFailedException {
        firstCommitterBreak = null;
        List<SnapshotTxn> done = new ArrayList<>();
        for (int txn : committed) {
            List<StmtRef> body = SerialSchedule.effective(testCase, trace, txn);
            if (body.isEmpty()) {
                continue;
            }
            List<StmtSim> writes = new ArrayList<>();
            for (StmtRef ref : body) {
                if (!testCase.stmt(ref).kind().isWrite()) {
                    continue;
                }
                Map<String, Integer> tablePoints = new LinkedHashMap<>();
                for (String table : initial().tables().keySet()) {
                    tablePoints.put(table, points.point(ref, table, body.get(0)));
                }
                Optional<DbState> snapshot = snapshotOf(done, tablePoints);
                for (StmtSim w : writes) {
                    snapshot = snapshot.flatMap(w.delta::applyTo);
                }
                if (snapshot.isEmpty()) {
                    return Optional.empty();
                }
                DbState own = snapshot.get();
                Set<String> onNewest = writtenOnNewestVersions(points, ref, tablePoints.keySet());
                if (!onNewest.isEmpty()) {
                    Optional<DbState> newest = committedBefore(done, trace.position(ref));
                    for (StmtSim w : writes) {
                        newest = newest.flatMap(w.delta::applyTo);
                    }
                    if (newest.isEmpty()) {
                        return Optional.empty();
                    }
                    own = newestVersions(own, newest.get(), onNewest);
                }
                DbState view = own;
                boolean onLatest = arbitratesOnLatest(ref);
                if (onLatest) {
                    Optional<DbState> latest = committedBefore(done, trace.position(ref));
                    for (StmtSim w : writes) {
                        latest = latest.flatMap(w.delta::applyTo);
                    }
                    view = latest.orElse(own);
                }
                Optional<StateDelta> delta = effectOn(Optional.of(view), List.of(ref));
                if (delta.isEmpty()) {
                    return Optional.empty();
                }
                checkFirstCommitterWins(done, txn, tablePoints, ref, ref.equals(body.get(0)), delta.get(), view, own, onLatest);
                if (delta.get().applyTo(own).isEmpty()) {
                    return Optional.empty();
                }
                writes.add(new StmtSim(ref, delta.get(), view));
            }
            done.add(new SnapshotTxn(txn, writes));
        }
        return Optional.of(done);
    }

    /**
     * The tables a write that waited for a row lock writes on the newest committed versions of the rows its snapshot shows,
     * where the level's first-committer-wins is measured and its snapshots are per table: those its transaction has taken no
     * snapshot of, the write included (measured on H2 at REPEATABLE READ: a waiting {@code UPDATE t SET c = constant}, its
     * transaction's first statement on t, updates the version the other transaction committed, docs/verdicts.md — and
     * leaves a row that transaction inserted alone, its snapshot not showing it: h2-RR-s105-i167). Needs the row
     * identities, which tell a row's versions apart.
     */
    private Set<String> writtenOnNewestVersions(SnapshotPoints points, StmtRef ref, Set<String> tables) {
        if (!withRowIds || !measuredRule() || !trace.executed(ref).map(ExecutedStmt::blocked).orElse(false)) {
            return Set.of();
        }
        Set<String> unread = new HashSet<>();
        for (String table : tables) {
            if (points.noSnapshotTakenOf(ref, table)) {
                unread.add(table);
            }
        }
        return unread;
    }

    /** {@code snapshot} with each of {@code tables} holding, of its rows, those {@code newest} still has, in their newest version. */
    private static DbState newestVersions(DbState snapshot, DbState newest, Set<String> tables) {
        Map<String, List<List<String>>> out = new LinkedHashMap<>(snapshot.tables());
        for (String table : tables) {
            List<List<String>> seen = snapshot.tables().get(table);
            if (seen == null) {
                continue;
            }
            Set<String> ids = new HashSet<>();
            seen.forEach(row -> ids.add(row.get(row.size() - 1)));
            out.put(table, newest.tables().getOrDefault(table, List.of()).stream().filter(row -> ids.contains(row.get(row.size() - 1))).toList());
        }
        return new DbState(out);
    }

    /** Each table as the writes of the simulated transactions that committed before its point left it. */
    private Optional<DbState> snapshotOf(List<SnapshotTxn> done, Map<String, Integer> tablePoints) throws SQLException, SetupFailedException {
        Map<Integer, Optional<DbState>> byPoint = new HashMap<>();
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        for (var e : tablePoints.entrySet()) {
            Optional<DbState> state = byPoint.get(e.getValue());
            if (state == null) {
                state = committedBefore(done, e.getValue());
                byPoint.put(e.getValue(), state);
            }
            if (state.isEmpty()) {
                return Optional.empty();
            }
            tables.put(e.getKey(), state.get().tables().get(e.getKey()));
        }
        return Optional.of(new DbState(tables));
    }

    /** The initial state plus the writes of the simulated transactions that committed before schedule position {@code point}. */
    private Optional<DbState> committedBefore(List<SnapshotTxn> done, int point) throws SQLException, SetupFailedException {
        Optional<DbState> state = Optional.of(initial());
        for (SnapshotTxn t : done) {
            if (endOf.get(t.txn) < point) {
                for (StmtSim w : t.writes) {
                    state = state.flatMap(w.delta::applyTo);
                }
            }
        }
        return state;
    }

    /**
     * An INSERT-based upsert at a level whose upserts arbitrate on the newest committed data (MERGE joins on its view),
     * or a plain INSERT ... VALUES there: its only read is the key check, which such engines make on the same index
     * entries — a key the snapshot shows but a concurrent transaction deleted and committed is free (PostgreSQL's
     * "Index Uniqueness Checks": the inserter waits for the deleter and repeats the test; issue 21 item 1). An
     * INSERT ... SELECT also reads its snapshot, so it stays there.
     */
    private boolean arbitratesOnLatest(StmtRef ref) {
        String sql = testCase.stmt(ref).sql().trim().toUpperCase(java.util.Locale.ROOT);
        boolean keyCheckOnly = testCase.stmt(ref).kind() == StmtKind.INSERT && !sql.contains("SELECT");
        return (testCase.stmt(ref).kind() == StmtKind.UPSERT || keyCheckOnly)
                && semantics.upserts() == Deviation.UpsertArbitration.LATEST_COMMITTED
                && !sql.startsWith("MERGE");
    }

    /**
     * First-committer-wins: {@code ref} of {@code txn} must not have changed or deleted a row version
     * that a transaction which committed before {@code txn} and after {@code txn}'s snapshot of the
     * row's table ({@code tablePoints}) changed or deleted — whenever either write ran: two overlapping transactions that wrote one row version cannot both commit. (Where the rule is only measured, a
     * row the other transaction committed with the values the snapshot shows is no conflict: see {@link #committedAsSeen}.) An upsert that arbitrated on the
     * newest data must not have changed a row version its snapshot does not show. {@code ref}
     * succeeded in the actual run (it is effective and the transaction committed), so either is a
     * break of the rule. A {@code first} statement of its transaction that waited for a lock may have
     * been restarted on a snapshot taken after the wait (nothing the transaction did before could
     * tell): transactions that committed before it resumed are not taken as concurrent.
     */
    private void checkFirstCommitterWins(List<SnapshotTxn> done, int txn, Map<String, Integer> tablePoints, StmtRef ref, boolean first,
                                         StateDelta delta, DbState view, DbState own, boolean onLatest) {
        if (firstCommitterBreak != null || failedInActualRun(ref)) {
            return;
        }
        Map<String, List<String>> touched = identities(delta, view);
        boolean restartable = first && trace.executed(ref).map(ExecutedStmt::blocked).orElse(false);
        for (SnapshotTxn other : done) {
            int end = endOf.get(other.txn);
            if (other.txn == txn || (restartable && end < trace.position(ref))) {
                continue;
            }
            for (StmtSim w : other.writes) {
                if (failedInActualRun(w.ref)) {
                    continue;
                }
                Map<String, List<String>> theirs = identities(w.delta, w.view);
                for (var e : touched.entrySet()) {
                    String table = e.getKey().substring(0, e.getKey().indexOf('#'));
                    if (theirs.containsKey(e.getKey()) && end >= tablePoints.getOrDefault(table, 0)
                            && !(measuredRule() && committedAsSeen(other, table, e.getValue()))) {
                        firstCommitterBreak = new FirstCommitterBreak(testCase, trace, withRowIds, measuredRule())
                                .bothCommitted(ref, w.ref, table, e.getValue());
                        return;
                    }
                }
            }
        }
        if (onLatest) {
            Map<String, List<String>> visible = identities(StateDelta.between(own, initialEmpty(own)), own);
            for (var e : touched.entrySet()) {
                if (!visible.containsKey(e.getKey())) {
                    firstCommitterBreak = new FirstCommitterBreak(testCase, trace, withRowIds, measuredRule()).arbitratedOnLatest(ref, e.getValue());
                    return;
                }
            }
        }
    }

    /**
     * Whether {@code other} committed {@code row} (a version the later writer's snapshot shows) with the values it has
     * there: it changed the row and changed it back, or set the values it had. Nothing of its write can be lost then, and
     * an engine that finds conflicts by comparing values sees none (H2: its maintainers describe the check as a value
     * comparison, h2database PR #2374 and issue #2167). With the identity column the row is followed through
     * {@code other}'s writes; without it, the values are (their count in the table is no lower after its writes).
     */
    private boolean committedAsSeen(SnapshotTxn other, String table, List<String> row) {
        if (withRowIds) {
            String id = row.get(row.size() - 1);
            List<String> last = row;
            for (StmtSim w : other.writes) {
                if (failedInActualRun(w.ref)) {
                    continue;
                }
                boolean removed = w.delta.removed().getOrDefault(table, List.of()).stream().anyMatch(r -> id.equals(r.get(r.size() - 1)));
                Optional<List<String>> added = w.delta.added().getOrDefault(table, List.of()).stream()
                        .filter(r -> id.equals(r.get(r.size() - 1))).findFirst();
                if (removed || added.isPresent()) {
                    last = added.orElse(null);
                }
            }
            return row.equals(last) || (last == null && storedAgainAsSeen(other, table, row));
        }
        int net = 0;
        for (StmtSim w : other.writes) {
            if (!failedInActualRun(w.ref)) {
                net += java.util.Collections.frequency(w.delta.added().getOrDefault(table, List.of()), row)
                        - java.util.Collections.frequency(w.delta.removed().getOrDefault(table, List.of()), row);
            }
        }
        return net >= 0;
    }

    /**
     * Whether {@code other}'s writes, which deleted {@code row} (a version with its identity), left a row with its values
     * stored under its key, where the engine stores the table's rows under columns of their own ({@link #rowKeys()}): an
     * engine that compares values finds the row by that key, so a row deleted and inserted again as it was is the row
     * changed and changed back (H2, integer primary key: campaign h2-SER-s52-i12019; with any other key it finds the
     * deletion, a conflict).
     */
    private boolean storedAgainAsSeen(SnapshotTxn other, String table, List<String> row) {
        List<Integer> key = rowKeys().get(table.toLowerCase(java.util.Locale.ROOT));
        if (key == null) {
            return false;
        }
        List<String> values = row.subList(0, row.size() - 1);
        java.util.function.Predicate<List<String>> underItsKey = r -> key.stream().allMatch(i -> r.get(i).equals(row.get(i)));
        List<String> last = values;
        for (StmtSim w : other.writes) {
            if (failedInActualRun(w.ref)) {
                continue;
            }
            if (w.delta.removed().getOrDefault(table, List.of()).stream().anyMatch(underItsKey)) {
                last = null;
            }
            Optional<List<String>> added = w.delta.added().getOrDefault(table, List.of()).stream().filter(underItsKey).findFirst();
            if (added.isPresent()) {
                last = added.get().subList(0, added.get().size() - 1);
            }
        }
        return values.equals(last);
    }

    /**
     * Per table (lower case), the positions of the columns the engine stores its rows under, as the engine reports them on
     * the case's schema ({@code Engine#clusteredKey}); a table stored by a hidden row id, or one the engine cannot tell of,
     * has none. Asked once per case, and only of a first-committer-wins break the identities alone do not settle.
     */
    private Map<String, List<Integer>> rowKeys() {
        if (rowKeys == null) {
            rowKeys = askedOfSchema(c -> {
                Map<String, List<Integer>> keys = new HashMap<>();
                for (String table : testCase.tables()) {
                    Optional<List<String>> columns = target.engine().clusteredKey(c, table);
                    if (columns.isPresent()) {
                        KeyOrderScan.byColumns(c, table, columns.get()).ifPresent(k -> keys.put(table.toLowerCase(java.util.Locale.ROOT), k.positions()));
                    }
                }
                return keys;
            }, Map.of()); // the engine cannot be asked: identities alone decide
        }
        return rowKeys;
    }

    /** Whether the level's first-committer-wins is measured on the engine, not promised by its manual. */
    private boolean measuredRule() {
        return semantics.requires(Deviation.Precondition.MEASURED_FIRST_COMMITTER_WINS);
    }

    /** An empty state with {@code like}'s tables. */
    private static DbState initialEmpty(DbState like) {
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        like.tables().keySet().forEach(t -> tables.put(t, List.of()));
        return new DbState(tables);
    }

    /**
     * The row versions {@code delta} removes (changed or deleted), keyed by table and identity. With
     * the identity column a version is its identity; without it, its values, and only when no other
     * row in {@code view} has the same values (else which of them was meant is unknown).
     */
    private Map<String, List<String>> identities(StateDelta delta, DbState view) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        delta.removed().forEach((t, rows) -> {
            for (List<String> row : rows) {
                if (withRowIds) {
                    out.put(t + "#" + row.get(row.size() - 1), row);
                } else if (view.tables().getOrDefault(t, List.of()).stream().filter(row::equals).count() == 1) {
                    out.put(t + "#" + row, row);
                }
            }
        });
        return out;
    }

    /**
     * Whether two overlapping committed transactions both changed or deleted one row version, which
     * first-committer-wins forbids: the later committer's write, simulated on its transaction's
     * snapshot (taken as the level's rule says), with both writes and both commits. Empty when the
     * rule held or cannot be checked (a write fails on its snapshot data, or no two committed writers
     * overlap).
     */
    Optional<RuleBreak> firstCommitterWinsBroken() throws SQLException, SetupFailedException {
        if (!writersOverlap()) {
            return Optional.empty();
        }
        SnapshotPoints points = snapshotPoints(semantics.deviations().contains(Deviation.TABLE_SNAPSHOTS)
                ? SnapshotPoints.Rule.PER_TABLE_AT_FIRST_READ : SnapshotPoints.Rule.AT_FIRST_STATEMENT);
        try {
            snapshotRun(points);
        } catch (RowIdsUnusable e) {
            withRowIds = false;
            initial = null;
            snapshotRun(points);
        }
        return Optional.ofNullable(firstCommitterBreak);
    }

    /** Whether two committed transactions with successful writes overlapped: one committed after the other's first statement and before its end. */
    private boolean writersOverlap() {
        List<Integer> writers = committed.stream().filter(t -> SerialSchedule.effective(testCase, trace, t).stream()
                .anyMatch(w -> testCase.stmt(w).kind().isWrite() && !failedInActualRun(w))).toList();
        for (int t : writers) {
            List<StmtRef> body = SerialSchedule.effective(testCase, trace, t);
            int began = trace.executed(body.get(0)).map(ExecutedStmt::completedBefore).orElse(0);
            for (int u : writers) {
                if (u != t && endOf.get(u) >= began && endOf.get(u) < endOf.get(t)) {
                    return true;
                }
            }
        }
        return false;
    }

    boolean reproducesActual(List<StateDelta> effects) throws SQLException, SetupFailedException {
        Optional<DbState> state = Optional.of(initial());
        for (StateDelta d : effects) {
            state = state.flatMap(d::applyTo);
            if (state.isEmpty()) {
                return false;
            }
        }
        return keys.normalise(withoutRowIds(state.get())).equals(keys.normalise(trace.finalState()));
    }

    DbState initial() throws SQLException, SetupFailedException {
        if (initial == null) {
            DbState plain = executor.runSerial(SerialSchedule.autocommit(testCase, List.of(), List.of()).testCase()).finalState();
            initial = rowIdsSupported() ? withNewRowIds(plain) : plain;
        }
        return initial;
    }

    /**
     * Whether the case's tables take the identity column; asked by preparing the database its simulations will use most
     * (keys as an autocommit simulation has them), so a reloadable case's first simulation finds it ready.
     */
    private boolean rowIdsSupported() throws SQLException {
        if (withRowIds == null) {
            boolean dropKeys = !anyDependsOnKeys;
            try (SimulationDatabases.Session session = simulations.open(way(dropKeys, true), simulationPreparation(dropKeys, true))) {
                withRowIds = true;
            } catch (SQLException | RuntimeException e) {
                withRowIds = false;
            }
        }
        return withRowIds;
    }

    /** How a simulation's database is prepared: with the keys dropped or kept, with or without the identity column. */
    private static String way(boolean dropKeys, boolean rowIds) {
        return (dropKeys ? "keys dropped" : "keys kept") + (rowIds ? ", row ids" : "");
    }

    /** The case's setup, then the identity column and the keys as {@link #way} says. */
    private SimulationDatabases.Preparation simulationPreparation(boolean dropKeys, boolean rowIds) {
        return (c, s) -> {
            s.setQueryTimeout(SIMULATION_TIMEOUT_S);
            for (String sql : testCase.setup()) {
                s.execute(sql);
            }
            if (rowIds) {
                addRowIdColumns(s);
            }
            if (dropKeys) {
                // Keys are checked against the newest data, not against the view loaded here; an
                // upsert's effect depends on them, so cases with upserts keep them.
                try {
                    target.dropKeyConstraints(c);
                } catch (SQLException e) {
                    // best effort: the simulation then checks keys against the view
                }
            }
        };
    }

    void addRowIdColumns(Statement s) throws SQLException {
        if (columnLists.isEmpty()) {
            for (String t : testCase.tables()) {
                try (var rs = s.executeQuery("SELECT * FROM " + target.quote(t) + " WHERE 1 = 0")) {
                    List<String> names = new ArrayList<>();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        names.add(rs.getMetaData().getColumnName(i));
                    }
                    columnLists.put(t.toLowerCase(java.util.Locale.ROOT), String.join(", ", names));
                }
            }
        }
        for (String t : testCase.tables()) {
            s.execute("ALTER TABLE " + target.quote(t) + " ADD COLUMN " + ROW_ID + " BIGINT");
        }
    }

    /**
     * The rows {@code sql}, an {@code INSERT INTO table …}, adds when run into an empty copy of {@code table}, every read
     * seeing {@code view}, as rows of {@code table} with identities of their own; {@link #copyCount} then gives its count.
     * Empty for another statement, or when the copy's insert fails.
     */
    Optional<StateDelta> insertedIntoAnEmptyCopy(DbState view, String table, String sql) throws SQLException, SetupFailedException {
        String copy = table + "_txfuzz_inserted";
        Optional<String> intoCopy = KeyOrderScan.insertingInto(sql, table, copy);
        return intoCopy.isEmpty() ? Optional.empty() : effectOnCopy(view, table, copy, intoCopy.get(), List.of(), Map.of()).map(this::withOwnRowIds);
    }

    /**
     * What {@code ref}, a single-table UPDATE or DELETE of {@code table}, does when its scan reads {@code rows} alone: the
     * statement run on a copy of the table holding them, every other read (its subqueries) seeing {@code view}; its count
     * goes to {@link #simulatedCounts}. Empty where the statement cannot be pointed at a copy, or fails there.
     */
    Optional<StateDelta> effectOnRows(StmtRef ref, String table, List<List<String>> rows, DbState view) throws SQLException, SetupFailedException {
        String copy = table + "_txfuzz_scanned";
        Optional<String> onCopy = StatementParts.onCopy(testCase.stmt(ref).sql(), copy);
        Optional<StateDelta> delta = onCopy.isEmpty() ? Optional.empty() : effectOnCopy(view, table, copy, onCopy.get(), rows, Map.of());
        if (delta.isPresent()) {
            simulatedCounts.put(ref, copyCount);
        }
        return delta;
    }

    /** The case's table named {@code name} (any case), as the initial state spells it. */
    Optional<String> tableNamed(String name) throws SQLException, SetupFailedException {
        return initial().tables().keySet().stream().filter(t -> t.equalsIgnoreCase(name)).findFirst();
    }

    /** {@code delta} with an identity of its own for each added row that has none (a row a copy's INSERT added). */
    private StateDelta withOwnRowIds(StateDelta delta) {
        return withRowIds ? new StateDelta(delta.removed(), withFilledRowIds(new DbState(delta.added()), Map.of()).tables()) : delta;
    }

    /** The update count of the statement {@link #effectOnCopy} last ran. */
    long copyCount;

    /**
     * What {@code sql} (a write whose target is {@code copy}, an empty copy of {@code table} holding only
     * {@code rows}) removes from and adds to those rows, on a database holding {@code view} otherwise, keys
     * dropped: the statement's other reads of {@code table} see {@code view}. Empty when it fails.
     */
    Optional<StateDelta> effectOnCopy(DbState view, String table, String copy, String sql, List<List<String>> rows,
                                              Map<String, StatementParts.JoinedCopy> joined) throws SQLException, SetupFailedException {
        initial();
        try (Database db = target.freshDatabase()) {
            try (Connection c = db.connect(testCase.isolation(), testCase.mode()); Statement s = c.createStatement()) {
                s.setQueryTimeout(SIMULATION_TIMEOUT_S);
                for (String setup : testCase.setup()) {
                    s.execute(setup);
                }
                if (withRowIds) {
                    addRowIdColumns(s);
                }
                try {
                    target.dropKeyConstraints(c);
                } catch (SQLException e) {
                    // best effort
                }
                try {
                    StateLoader.load(target, c, testCase.tables(), view);
                    s.execute("CREATE TABLE " + target.quote(copy) + " AS SELECT * FROM " + target.quote(table) + " WHERE 1 = 0");
                    StateLoader.load(target, c, List.of(copy), new DbState(Map.of(copy, rows)));
                    for (Map.Entry<String, StatementParts.JoinedCopy> j : joined.entrySet()) {
                        s.execute("CREATE TABLE " + target.quote(j.getKey()) + " AS SELECT * FROM " + target.quote(j.getValue().of()) + " WHERE 1 = 0");
                        StateLoader.load(target, c, List.of(j.getKey()), new DbState(Map.of(j.getKey(), j.getValue().rows())));
                    }
                } catch (SQLException | RuntimeException e) {
                    return Optional.empty();
                }
                try {
                    copyCount = s.execute(sql) ? returnedRows(s) : s.getUpdateCount();
                } catch (SQLException e) {
                    return Optional.empty(); // it fails on the data the rule says it saw: no explanation
                }
                List<List<String>> after = StateReader.read(target, c, List.of(copy)).tables().getOrDefault(copy, List.of());
                return Optional.of(StateDelta.between(new DbState(Map.of(table, rows)), new DbState(Map.of(table, after))));
            } catch (SQLException e) {
                throw new SetupFailedException("cannot rebuild a state for the explanation: " + e.getMessage(), e);
            }
        }
    }

    /** Whether a simulation checks the case's unique and primary keys. */
    enum Keys {
        /**
         * only when a simulated statement's effect depends on them ({@link DeviationExplainer#dependsOnKeys}: an upsert, REPLACE, INSERT … IGNORE);
         * elsewhere the engine checks keys against the newest data, not against the view a simulation loads. In a case with a
         * foreign key, for every statement when any statement of the case depends on them ({@link DeviationExplainer#hasForeignKey})
         */
        IF_UPSERTS,
        KEPT,
        DROPPED
    }

    /** What {@code statements}, run as autocommit statements on a database holding {@code view}, remove and add. */
    Optional<StateDelta> effectOn(Optional<DbState> view, List<StmtRef> statements) throws SQLException, SetupFailedException {
        return effectOn(view, statements, Keys.IF_UPSERTS);
    }

    Optional<StateDelta> effectOn(Optional<DbState> view, List<StmtRef> statements, Keys keys) throws SQLException, SetupFailedException {
        return effectOn(view, statements, keys, sql -> sql);
    }

    /** {@link #effectOn(Optional, List, Keys)} with each statement's text passed through {@code rewrite} first. */
    Optional<StateDelta> effectOn(Optional<DbState> view, List<StmtRef> statements, Keys keys, java.util.function.UnaryOperator<String> rewrite)
            throws SQLException, SetupFailedException {
        return effectOn(view, statements, keys, rewrite, false);
    }

    private Optional<StateDelta> effectOn(Optional<DbState> view, List<StmtRef> statements, Keys keys,
                                          java.util.function.UnaryOperator<String> rewrite, boolean failedToo)
            throws SQLException, SetupFailedException {
        if (view.isEmpty()) {
            return Optional.empty(); // the effects visible to it collide: no state the engine could have shown
        }
        initial();
        boolean dropKeys = keys == Keys.DROPPED || keys == Keys.IF_UPSERTS
                && (hasForeignKey ? !anyDependsOnKeys : statements.stream().noneMatch(ref -> dependsOnKeys(testCase.stmt(ref))));
        boolean rowIds = withRowIds;
        try (SimulationDatabases.Session session = simulations.open(way(dropKeys, rowIds), simulationPreparation(dropKeys, rowIds))) {
            Connection c = session.connection();
            Statement s = session.statement();
            // Alone on its database, a statement that runs this long hangs (the explicit oracle's business).
            s.setQueryTimeout(SIMULATION_TIMEOUT_S);
            try {
                StateLoader.load(target, c, testCase.tables(), view.get());
            } catch (SQLException | RuntimeException e) {
                return Optional.empty(); // the view breaks a constraint: no state the engine could have shown
            }
            for (StmtRef ref : statements) {
                if (!failedToo && failedInActualRun(ref)) {
                    // It had no effect in the actual run (constraints, for one, are checked against
                    // the newest data, not the statement's view).
                    continue;
                }
                try {
                    String sql = rewrite.apply(testCase.stmt(ref).sql());
                    boolean rows = s.execute(withRowIds ? withColumnList(sql) : sql);
                    simulatedCounts.put(ref, rows ? returnedRows(s) : s.getUpdateCount());
                } catch (SQLException e) {
                    ErrorClass cls = target.classify(e);
                    if (withRowIds && cls != ErrorClass.CONSTRAINT && cls != ErrorClass.DATA) {
                        throw new RowIdsUnusable(); // the identity column broke the statement
                    }
                    // It succeeded for real but fails on the data the rule says it saw: the rule
                    // does not explain the run.
                    return Optional.empty();
                }
            }
            DbState after = StateReader.read(target, c, testCase.tables());
            if (withRowIds) {
                after = withFilledRowIds(after, inInsertionOrder(c));
            }
            return Optional.of(StateDelta.between(view.get(), after));
        } catch (SQLException e) {
            throw new SetupFailedException("cannot rebuild a state for the explanation: " + e.getMessage(), e);
        }
    }

    /** Whether {@code st}'s effect depends on the table's keys: which rows an upsert updates, a REPLACE deletes, an INSERT … IGNORE skips. */
    static boolean dependsOnKeys(txfuzz.model.Stmt st) {
        return st.kind() == StmtKind.UPSERT || st.kind() == StmtKind.INSERT && KEYED_INSERT.matcher(st.sql()).find();
    }

    /** {@code INSERT INTO t VALUES ...} with t's own column list, so the identity column takes its default. */
    private String withColumnList(String sql) {
        java.util.regex.Matcher m = INSERT_WITHOUT_COLUMNS.matcher(sql);
        if (!m.find()) {
            return sql;
        }
        String columns = columnLists.get(m.group(2).toLowerCase(java.util.Locale.ROOT));
        return columns == null ? sql : m.group(1) + m.group(2) + " (" + columns + ")" + m.group(3) + sql.substring(m.end());
    }

    boolean failedInActualRun(StmtRef ref) {
        return trace.executed(ref).map(e -> e.result().failed()).orElse(false);
    }

    /**
     * {@code state} read without the identity column, every row given a fresh identity: in insertion order for a
     * table the engine stores so ({@link #insertionOrder}), as the engine's hidden row id would be.
     */
    private DbState withNewRowIds(DbState state) {
        Map<String, List<List<String>>> ordered = insertionOrder(state);
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        state.tables().forEach((t, rows) -> {
            List<List<String>> out = new ArrayList<>();
            for (List<String> row : ordered.getOrDefault(t, rows)) {
                List<String> r = new ArrayList<>(row);
                r.add(String.valueOf(nextRowId++));
                out.add(r);
            }
            tables.put(t, out);
        });
        return new DbState(tables);
    }

    /**
     * The rows of each table of {@code state} that has no clustered key, in the order the engine stores them, where it
     * documents that order as insertion order ({@code Engine#insertionOrderRead}), read on the setup run again; a table
     * whose rows read so are not {@code state}'s is left out, and so is every table when the order cannot be read.
     */
    private Map<String, List<List<String>>> insertionOrder(DbState state) {
        insertionOrdered.clear();
        Map<String, List<List<String>>> out = new HashMap<>();
        if (target.engine().insertionOrderRead(target.quote("t")).isEmpty()
                || semantics.deviations().stream().noneMatch(Deviation::followsScanOrder)) {
            return out; // only the scan-order rules follow it: elsewhere it costs no fresh database
        }
        try (Database db = target.freshDatabase(); Connection c = db.connect(testCase.isolation(), testCase.mode());
             Statement s = c.createStatement()) {
            for (String sql : testCase.setup()) {
                s.execute(sql);
            }
            for (Map.Entry<String, List<List<String>>> t : state.tables().entrySet()) {
                if (!KeyOrderScan.keyColumns(target.engine(), c, t.getKey()).isEmpty()) {
                    continue;
                }
                String read = target.engine().insertionOrderRead(target.quote(t.getKey())).orElseThrow();
                List<List<String>> rows = StateReader.rowsInReturnedOrder(c, read);
                if (DbState.sorted(rows).equals(t.getValue())) {
                    out.put(t.getKey(), rows);
                    insertionOrdered.add(t.getKey().toLowerCase(java.util.Locale.ROOT));
                }
            }
            return out;
        } catch (SQLException | RuntimeException e) {
            insertionOrdered.clear();
            return Map.of(); // the order cannot be read: no table is taken to be in insertion order
        }
    }

    /**
     * {@code state} read with the identity column; rows the statement inserted (identity NULL) get a fresh one, in the order
     * {@code ordered} gives a table's rows where it has them: the engine's insertion order, which a scan of a table without a
     * clustered key follows (one INSERT's rows in the order of its VALUES, campaign h2-RU-s54-i10300), else the rows' order.
     */
    private DbState withFilledRowIds(DbState state, Map<String, List<List<String>>> ordered) {
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        state.tables().forEach((t, rows) -> tables.put(t, ordered.getOrDefault(t, rows).stream().map(row -> {
            if (row.get(row.size() - 1) != null) {
                return row;
            }
            List<String> r = new ArrayList<>(row);
            r.set(r.size() - 1, String.valueOf(nextRowId++));
            return r;
        }).toList()));
        return new DbState(tables);
    }

    /** The rows of each table {@link #insertionOrdered} on {@code c}, in the order the engine stores them; the same rows as a plain read. */
    private Map<String, List<List<String>>> inInsertionOrder(Connection c) throws SQLException {
        if (insertionOrdered.isEmpty()) {
            return Map.of(); // most cases: no simulation reads anything more
        }
        Map<String, List<List<String>>> out = new HashMap<>();
        for (String t : testCase.tables()) {
            Optional<String> read = target.engine().insertionOrderRead(target.quote(t));
            if (insertionOrdered.contains(t.toLowerCase(java.util.Locale.ROOT)) && read.isPresent()) {
                out.put(t, StateReader.rowsInReturnedOrder(c, read.get()));
            }
        }
        return out;
    }

    private static DbState mapRows(DbState state, java.util.function.UnaryOperator<List<String>> f) {
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        state.tables().forEach((t, rows) -> tables.put(t, rows.stream().map(f).toList()));
        return new DbState(tables);
    }

    private DbState withoutRowIds(DbState state) {
        if (!withRowIds) {
            return state;
        }
        return mapRows(state, r -> r.subList(0, r.size() - 1));
    }

    static Set<String> rowIds(StateDelta d) {
        Set<String> ids = new HashSet<>();
        d.removed().values().forEach(rows -> rows.forEach(r -> ids.add(r.get(r.size() - 1))));
        return ids;
    }

    /** Drops the databases its simulations kept. */
    @Override
    public void close() {
        simulations.close();
    }
}
