package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.SetupFailedException;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;
import txfuzz.oracle.wss.DeviationExplainer.Effect;

/**
 * {@link Deviation#STATEMENT_SNAPSHOT_WITH_RECHECK}: PostgreSQL's READ COMMITTED per part of a statement
 * ({@link StatementParts}): the read part on the statement's snapshot, a chosen row changed meanwhile re-checked on its
 * newest version, keys on the newest committed data.
 */
final class StatementSnapshotWithRecheck extends Mechanism {
    StatementSnapshotWithRecheck() {
        super(Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK, Promise.READ_COMMITTED, "PostgresRecheckJoinedRowsTest, H2ReadCommittedRecheckTest, PostgresReadCommittedStatementPartsTest");
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return "statement snapshot with re-check: each write read the data " + (dirty ? "as it was when it began, writes not committed"
                + " yet included (dirty reads);" : "committed before it began;")
                + " a row it chose (UPDATE, DELETE, MERGE) that a concurrent transaction changed meanwhile was re-checked on its newest"
                + " version after the wait (EvalPlanQual)"
                + (sim.semantics.recheckedSubqueries() == Deviation.RecheckedSubqueries.JOINED_ROWS_KEPT
                        ? ", with the rows its EXISTS or IN subqueries had joined to it, not the subqueries run again" : "")
                + " and rows inserted meanwhile stayed invisible"
                + (sim.semantics.mergeLocks() == Deviation.MergeLocks.MATCHED_ROWS
                        ? "; a MERGE locked every row its ON join matched, acted on or not, so a source row whose matched row was deleted"
                                + " meanwhile or no longer matched was taken as NOT MATCHED" : "")
                + "; unique keys and ON CONFLICT were checked against the newest committed data";
    }

    /**
     * {@link Deviation#STATEMENT_SNAPSHOT_WITH_RECHECK}: each committed write, in the order they
     * completed, takes one of the effects {@link StatementParts} allows it on its snapshot (data
     * committed before it was submitted) and the newest committed data (when it completed); some
     * choice must reproduce the final state. Needs row identities.
     */
    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        sim.initial();
        if (!sim.withRowIds) {
            // Without identities no row can be followed into its newer version; but where no write waited, none of the rows
            // it chose changed while it ran (the controlled executor runs one statement at a time), so its snapshot was the
            // newest committed data when it ran and nothing was re-checked: the rule is statement visibility as submitted.
            return sim.writesInCompletionOrder(false).stream().noneMatch(ref -> sim.trace.executed(ref).map(ExecutedStmt::blocked).orElse(false))
                    && StatementVisibility.simulate(sim, false, Deviation.ReadPoint.SUBMITTED);
        }
        List<StmtRef> writes = sim.writesInCompletionOrder(false);
        StatementParts parts = new StatementParts(sim.testCase, new StatementParts.Simulation() {
            @Override
            public Optional<StateDelta> effectOn(DbState view, StmtRef ref, boolean keepKeys) throws SQLException, SetupFailedException {
                return sim.effectOn(Optional.of(view), List.of(ref), keepKeys ? DeviationExplainer.Keys.KEPT : DeviationExplainer.Keys.DROPPED);
            }

            @Override
            public Optional<StateDelta> effectOfRewritten(DbState view, StmtRef ref, String sql) throws SQLException, SetupFailedException {
                return sim.effectOn(Optional.of(view), List.of(ref), DeviationExplainer.Keys.DROPPED, original -> sql);
            }

            @Override
            public Long count(StmtRef ref) {
                return sim.simulatedCounts.get(ref);
            }

            @Override
            public boolean keysHold(DbState state) throws SQLException, SetupFailedException {
                return sim.effectOn(Optional.of(state), List.of(), DeviationExplainer.Keys.KEPT).isPresent();
            }

            @Override
            public Optional<StateDelta> effectOnCopy(DbState view, StmtRef ref, String table, String copy, String sql, List<List<String>> rows,
                                                     Map<String, StatementParts.JoinedCopy> joined)
                    throws SQLException, SetupFailedException {
                Optional<StateDelta> d = sim.effectOnCopy(view, table, copy, sql, rows, joined);
                sim.simulatedCounts.put(ref, sim.copyCount); // count(ref) is now the rows it processed in the copy
                return d;
            }

            @Override
            public Optional<StateDelta> effectOnEmptyCopy(DbState view, StmtRef ref, String table) throws SQLException, SetupFailedException {
                Optional<StateDelta> d = sim.insertedIntoAnEmptyCopy(view, table, sim.testCase.stmt(ref).sql());
                sim.simulatedCounts.put(ref, sim.copyCount);
                return d;
            }
        }, sim.semantics.recheckedSubqueries() == Deviation.RecheckedSubqueries.JOINED_ROWS_KEPT, sim.semantics.mergeLocks());
        statementsLeftToSimulate = MAX_RECHECK_STATEMENTS;
        dirty = false;
        if (recheckedFrom(sim, parts, writes, 0, new ArrayList<>())) {
            return true;
        }
        if (!sim.semantics.deviations().contains(Deviation.DIRTY_VISIBILITY)) {
            return false;
        }
        // Where the level also reads uncommitted data, a statement's snapshot holds the writes in flight when it began,
        // those of transactions that later rolled back too, and a row it waited for is re-checked on what is left of it once
        // the holder ended (a row the holder inserted and rolled back is gone): H2 at READ UNCOMMITTED, h2-RU-s105-i15
        statementsLeftToSimulate = MAX_RECHECK_STATEMENTS;
        dirty = true;
        return recheckedFrom(sim, parts, sim.writesInCompletionOrder(true), 0, new ArrayList<>());
    }

    /** Whether the views of the current simulation hold uncommitted writes. */
    private boolean dirty;

    /** The choices of re-checked rows multiply: at most this many statements are simulated per explanation. */
    private static final int MAX_RECHECK_STATEMENTS = 64;
    private int statementsLeftToSimulate;

    /** Whether some choice of effects for {@code writes} from {@code i} on, after {@code done}, reproduces the final state. */
    private boolean recheckedFrom(DeviationExplainer sim, StatementParts parts, List<StmtRef> writes, int i, List<Effect> done) throws SQLException, SetupFailedException {
        if (i == writes.size()) {
            return sim.accepted(sim.reproducesActual(done.stream().filter(d -> sim.committed.contains(d.txn())).map(Effect::delta).toList()));
        }
        StmtRef ref = writes.get(i);
        ExecutedStmt e = sim.trace.executed(ref).orElseThrow();
        int submitted = e.completedBefore();
        int resumed = sim.trace.position(ref);
        List<StatementParts.Candidate> candidates;
        if (statementsLeftToSimulate-- <= 0) {
            return false;
        } else if (sim.failedInActualRun(ref)) {
            candidates = List.of(new StatementParts.Candidate(StateDelta.between(sim.initial(), sim.initial()), null));
        } else {
            Optional<DbState> snapshot = sim.view(done, ref.txn(), submitted, dirty);
            Optional<DbState> newest = sim.view(done, ref.txn(), resumed, dirty);
            if (snapshot.isEmpty() || newest.isEmpty()) {
                return false;
            }
            candidates = parts.effects(ref, snapshot.get(), newest.get());
        }
        for (StatementParts.Candidate c : candidates) {
            if (sim.skippedALockedRow(done, ref, e, c.delta(), submitted)) {
                continue; // the engine would have waited
            }
            if (c.count() == null) {
                sim.simulatedCounts.remove(ref);
            } else {
                sim.simulatedCounts.put(ref, c.count());
            }
            done.add(new Effect(resumed, ref.txn(), c.delta()));
            if (recheckedFrom(sim, parts, writes, i + 1, done)) {
                return true;
            }
            done.remove(done.size() - 1);
        }
        return false;
    }
}
