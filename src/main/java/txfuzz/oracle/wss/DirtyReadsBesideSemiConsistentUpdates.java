package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.SetupFailedException;
import txfuzz.model.DbState;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.oracle.wss.DeviationExplainer.Effect;

/**
 * {@link Deviation#DIRTY_READS_BESIDE_SEMI_CONSISTENT_UPDATES}: dirty reads, except the rows an UPDATE that did not wait
 * scanned, which it read in their newest committed versions (campaign mariadb-RU-s74-i5168: a transaction's INSERT … SELECT
 * read another's uncommitted row, and its UPDATE of that table passed the row, which has no committed version).
 */
final class DirtyReadsBesideSemiConsistentUpdates extends Mechanism {
    DirtyReadsBesideSemiConsistentUpdates() {
        // reads of uncommitted data (G1a/G1b); writes still wait for each other's locks
        super(Deviation.DIRTY_READS_BESIDE_SEMI_CONSISTENT_UPDATES, Promise.READ_UNCOMMITTED, "SemiConsistentUpdatesBesideDirtyReadsTest");
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return "dirty reads beside semi-consistent updates: each write read the data as they were when it began (one that waited,"
                + " when it resumed), writes not committed yet included, but an UPDATE read a row another transaction had written and"
                + " not committed in its newest committed version, passing one that has none (" + String.join("; ", passed) + ")";
    }

    /** The UPDATEs the last simulation ran on committed versions, and how many rows they passed, in words. */
    private final List<String> passed = new ArrayList<>();

    /**
     * Every transaction's writes in the order they completed, each on the data (uncommitted writes included) as of its
     * submission, or its resumption where it waited; a single-table UPDATE that did not wait runs on the committed versions
     * of its table's rows, its other reads on that data. Explains only where such an UPDATE's rows differed so.
     */
    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        sim.initial();
        if (!sim.withRowIds) {
            return false;
        }
        passed.clear();
        List<Effect> done = new ArrayList<>();
        for (StmtRef ref : sim.writesInCompletionOrder(true)) {
            ExecutedStmt e = sim.trace.executed(ref).orElseThrow();
            int submitted = e.completedBefore();
            int point = e.blocked() ? sim.trace.position(ref) : submitted;
            Optional<DbState> dirty = sim.view(done, ref.txn(), point, true);
            Optional<StateDelta> delta = e.blocked() || sim.testCase.stmt(ref).kind() != StmtKind.UPDATE ? Optional.empty()
                    : onCommittedVersions(sim, done, ref, point, dirty);
            if (delta.isEmpty()) {
                delta = sim.effectOn(dirty, List.of(ref));
            }
            if (delta.isEmpty() || sim.skippedALockedRow(done, ref, e, delta.get(), submitted)) {
                return false;
            }
            done.add(new Effect(sim.trace.position(ref), ref.txn(), delta.get()));
        }
        return !passed.isEmpty()
                && sim.accepted(sim.reproducesActual(done.stream().filter(d -> sim.committed.contains(d.txn())).map(Effect::delta).toList()));
    }

    /**
     * {@code ref}, a single-table UPDATE, run on a copy of its table holding the rows' committed versions as of {@code point}
     * (its own transaction's writes included), every other read on {@code dirty}; empty where its table holds no row
     * another transaction wrote and has not committed (the plain dirty read does the same then), or where it cannot run so.
     */
    private Optional<StateDelta> onCommittedVersions(DeviationExplainer sim, List<Effect> done, StmtRef ref, int point, Optional<DbState> dirty)
            throws SQLException, SetupFailedException {
        Optional<KeyOrderScan.Target> target = KeyOrderScan.target(sim.testCase.stmt(ref).sql());
        Optional<DbState> committed = sim.view(done, ref.txn(), point, false);
        if (target.isEmpty() || committed.isEmpty() || dirty.isEmpty()) {
            return Optional.empty();
        }
        Optional<String> table = sim.tableNamed(target.get().table());
        if (table.isEmpty()) {
            return Optional.empty();
        }
        List<List<String>> versions = committed.get().tables().getOrDefault(table.get(), List.of());
        List<List<String>> newest = dirty.get().tables().getOrDefault(table.get(), List.of());
        if (new java.util.HashSet<>(versions).equals(new java.util.HashSet<>(newest))) {
            return Optional.empty();
        }
        Optional<StateDelta> delta = sim.effectOnRows(ref, table.get(), versions, dirty.get());
        delta.ifPresent(d -> passed.add(ref + " read " + table.get() + "'s committed versions"));
        return delta;
    }
}
