package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.SetupFailedException;
import txfuzz.model.DbState;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.oracle.wss.DeviationExplainer.Effect;

/**
 * {@link Deviation#STATEMENT_VISIBILITY}: each statement sees the data committed before it began (a statement that waited:
 * at the read point a manual describes) and locks only the rows it changes.
 */
final class StatementVisibility extends Mechanism {
    StatementVisibility() {
        // every statement reads committed data and writers are ordered by their locks: no G0 or G1 can form (a wr edge
        // follows its writer's commit, a ww edge the earlier writer's commit), while lost updates and read skew can
        super(Deviation.STATEMENT_VISIBILITY, Promise.READ_COMMITTED, "WritersWaitForLockedRowsTest");
    }

    @Override
    List<Deviation.ReadPoint> readPoints() {
        return List.of(Deviation.ReadPoint.values());
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return "statement-level visibility: each write saw only data committed before it began, with no predicate or gap locks"
                + waited(readPoint);
    }

    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        return simulate(sim, false, readPoint);
    }

    /** What a statement that waited read, in words. */
    static String waited(Deviation.ReadPoint readPoint) {
        String waited = switch (readPoint) {
            case SUBMITTED -> "";
            case RESUMED -> "; a statement that waited for a lock read the data as of when it resumed";
            case RECHECK -> "; an UPDATE or DELETE that waited for a lock kept the rows it had chosen and re-checked their newest"
                    + " versions (as PostgreSQL's EvalPlanQual does), not seeing rows inserted meanwhile";
        };
        return waited;
    }

    /**
     * Each write, in the order they completed, run on the data visible at its read point (with {@code dirty}, also what
     * transactions that had not committed yet had written, those that later rolled back included).
     */
    static boolean simulate(DeviationExplainer sim, boolean dirty, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        return simulate(sim, dirty, readPoint, null);
    }

    /**
     * {@link #simulate(DeviationExplainer, boolean, Deviation.ReadPoint)}; with {@code dirty}, a write read at its submission
     * may also have seen part of another transaction's write in flight ({@link InFlightReads}): what it saw so goes to
     * {@code inFlightSeen} (null: no such reads are tried).
     */
    static boolean simulate(DeviationExplainer sim, boolean dirty, Deviation.ReadPoint readPoint, List<String> inFlightSeen)
            throws SQLException, SetupFailedException {
        // reading uncommitted data includes data of transactions that later rolled back
        List<StmtRef> writes = sim.writesInCompletionOrder(dirty);
        List<Effect> done = new ArrayList<>();
        for (StmtRef ref : writes) {
            ExecutedStmt e = sim.trace.executed(ref).orElseThrow();
            int submitted = e.completedBefore();
            int resumed = sim.trace.position(ref);
            Optional<StateDelta> delta;
            List<String> seen = new ArrayList<>();
            if (readPoint == Deviation.ReadPoint.RESUMED) {
                // a write that did not wait read when it ran, and may have read a half-done write in flight then, as at its
                // submission (campaign h2-RU-s61-i14680: a MERGE reads the row a waiting MERGE has already updated)
                Optional<DbState> view = sim.view(done, ref.txn(), resumed, dirty);
                boolean readsInFlight = dirty && !e.blocked();
                // where it failed: what it read, and what its key check met (in-flight views asked of it even in the plain pass)
                sim.recordKeyCheck(done, ref, view, resumed, readsInFlight);
                delta = readsInFlight && inFlightSeen != null ? sim.inFlightReads().effect(done, ref, view, seen) : sim.effectOn(view, List.of(ref));
            } else {
                StmtKind kind = sim.testCase.stmt(ref).kind();
                boolean rechecked = readPoint == Deviation.ReadPoint.RECHECK && e.blocked() && sim.withRowIds
                        && (kind == StmtKind.UPDATE || kind == StmtKind.DELETE);
                Optional<DbState> view = sim.view(done, ref.txn(), submitted, dirty);
                // a write re-checked at its resumption reads no half-done write: its rows are chosen on the plain view
                boolean readsInFlight = dirty && !rechecked;
                sim.recordKeyCheck(done, ref, view, resumed, readsInFlight);
                delta = readsInFlight && inFlightSeen != null ? sim.inFlightReads().effect(done, ref, view, seen) : sim.effectOn(view, List.of(ref));
                // the rows it chose as submitted; an UPDATE whose SET fails on the versions it first read (a CHECK refusing the value
                // it computes there) chose the rows its WHERE matched, and computes its SET on the newest versions it re-checks
                Optional<Set<String>> chosenRows = rechecked ? delta.map(DeviationExplainer::rowIds) : Optional.empty();
                if (rechecked && chosenRows.isEmpty() && kind == StmtKind.UPDATE) {
                    chosenRows = sim.rowsItsWhereMatches(view, ref);
                }
                if (chosenRows.isPresent()) {
                    Set<String> chosen = chosenRows.get();
                    Optional<DbState> before = sim.view(done, ref.txn(), submitted, dirty);
                    Optional<DbState> after = sim.view(done, ref.txn(), resumed, dirty);
                    // the rows it chose as of its submission, changed or not, that still match on their newest version
                    Optional<Set<String>> matchedBefore = kind == StmtKind.UPDATE ? sim.matchedRows(before, ref) : Optional.of(chosen);
                    if (matchedBefore.isEmpty() && kind == StmtKind.UPDATE) {
                        matchedBefore = sim.rowsItsWhereMatches(before, ref); // its SET fails there, as above
                    }
                    delta = sim.effectOn(after, List.of(ref)).map(d -> d.restrictedTo(chosen));
                    Optional<Set<String>> matchedAfter = kind == StmtKind.UPDATE ? sim.matchedRows(after, ref) : delta.map(DeviationExplainer::rowIds);
                    if (matchedBefore.isPresent() && matchedAfter.isPresent()) {
                        Set<String> counted = new HashSet<>(matchedBefore.get());
                        counted.retainAll(matchedAfter.get());
                        sim.simulatedCounts.put(ref, (long) counted.size());
                    } else {
                        sim.simulatedCounts.remove(ref); // the rows it matched cannot be told: no count is reproduced
                    }
                }
            }
            if (delta.isEmpty()) {
                return false;
            }
            if (!seen.isEmpty()) {
                inFlightSeen.add(ref + " read " + String.join(", ", seen));
            }
            if (sim.skippedALockedRow(done, ref, e, delta.get(), submitted)) {
                return false; // the engine would have waited: a simulation that does not wait explains nothing
            }
            done.add(new Effect(resumed, ref.txn(), delta.get()));
        }
        return sim.accepted(sim.reproducesActual(done.stream().filter(e -> sim.committed.contains(e.txn())).map(Effect::delta).toList()));
    }
}
