package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * {@link Deviation#DIRTY_SCAN_IN_KEY_ORDER}: a scan that reads each row, and runs its subqueries, when it reaches it, on the
 * data of that moment, uncommitted writes included; a write that waited read the rows before the waited-for one as when it
 * began and the rest as when it resumed, each part with its own subqueries; the waited-for row, when its holder left it as it
 * was, with the WHERE's result from when the scan met it. One instance per case: it caches plans and
 * keeps where each write was split.
 */
final class DirtyScanInKeyOrder extends Mechanism {
    DirtyScanInKeyOrder() {
        // reads of uncommitted data; writes still wait for each other's locks (no dirty write)
        super(Deviation.DIRTY_SCAN_IN_KEY_ORDER, Promise.READ_UNCOMMITTED, "DirtyScanInKeyOrderTest");
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return "dirty scan in key order: each write read the data as they were when it began, writes not committed yet included"
                + " (dirty reads); an UPDATE or DELETE that waited for a row lock read the rows before that row in scan order, and ran"
                + " their subqueries, on the data as they were when it began, and that row and the rows after it, with their"
                + " subqueries, on the data as they were when it resumed, its scan walking the rows the table held when it began"
                + " (" + String.join("; ", splits) + ")";
    }

    /** Where each write the last simulation split waited, in words ("T2.1 waited on t2 row (0, 1)"). */
    private final List<String> splits = new ArrayList<>();
    /** The blockers' rows and the plans of the writes that waited. */
    private final ScanWaits scanWaits = new ScanWaits();

    /**
     * Each write of every transaction, committed or not, in the order they completed, reads the data (uncommitted writes
     * included) as of its submission; one that waited for a lock reads, if it is a single-table UPDATE or DELETE scanning
     * its table in a known order, in two parts ({@link #splitEffect}), else the data as of when it resumed. Explains only
     * when at least one write was split (otherwise it is {@link DirtyVisibility}). Needs row identities.
     */
    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        sim.initial();
        if (!sim.withRowIds) {
            return false;
        }
        splits.clear();
        List<Effect> done = new ArrayList<>();
        for (StmtRef ref : sim.writesInCompletionOrder(true)) {
            ExecutedStmt e = sim.trace.executed(ref).orElseThrow();
            int submitted = e.completedBefore();
            int resumed = sim.trace.position(ref);
            Optional<StateDelta> delta = e.blocked() ? splitEffect(sim, done, ref, submitted, resumed) : Optional.empty();
            Optional<DbState> view = Optional.empty();
            if (delta.isEmpty()) {
                view = sim.view(done, ref.txn(), e.blocked() ? resumed : submitted, true);
                delta = sim.effectOn(view, List.of(ref));
            }
            if (delta.isEmpty() || sim.skippedALockedRow(done, ref, e, delta.get(), submitted)) {
                return false;
            }
            done.add(new Effect(resumed, ref.txn(), delta.get(), ref, view));
        }
        return !splits.isEmpty()
                && sim.accepted(sim.reproducesActual(done.stream().filter(d -> sim.committed.contains(d.txn())).map(Effect::delta).toList()));
    }

    /**
     * The effect of {@code ref}, which waited: the statement run on the rows of its table before the waited-for row as they
     * were at its submission, every other read on the data as of then, plus the statement run on that row and the rows after
     * it that the table held at its submission, each as it was when it resumed ({@link KeyOrderScan#splitOnSubmitted}), every
     * other read on the data as of then; its count the sum of both. Empty when the rule does not apply (not a single-table
     * UPDATE or DELETE, a scan order not known, no row it matched that a blocker held, keys whose order is not certain) or
     * the parts break a key.
     */
    private Optional<StateDelta> splitEffect(DeviationExplainer sim, List<Effect> done, StmtRef ref, int submitted, int resumed)
            throws SQLException, SetupFailedException {
        StmtKind kind = sim.testCase.stmt(ref).kind();
        Optional<KeyOrderScan.Target> target = KeyOrderScan.target(sim.testCase.stmt(ref).sql());
        if (target.isEmpty() || (kind != StmtKind.UPDATE && kind != StmtKind.DELETE) || sim.failedInActualRun(ref)) {
            return Optional.empty();
        }
        Optional<String> table = sim.tableNamed(target.get().table());
        Optional<DbState> before = sim.view(done, ref.txn(), submitted, true);
        Optional<DbState> after = sim.view(done, ref.txn(), resumed, true);
        String copy = target.get().table() + "_txfuzz_split";
        Optional<String> onCopy = StatementParts.onCopy(sim.testCase.stmt(ref).sql(), copy);
        if (table.isEmpty() || before.isEmpty() || after.isEmpty() || onCopy.isEmpty()) {
            return Optional.empty();
        }
        // It waits on a row it matches as it reads it (the holder's uncommitted version), held by a transaction that ended
        // while it waited: one that transaction changed, deleted, inserted, or matched and left as it was (it locked them all).
        // Keys are dropped here (which rows it matches does not depend on them); the parts' result is checked against them.
        Optional<StateDelta> onSubmitted = sim.effectOn(before, List.of(ref), DeviationExplainer.Keys.DROPPED);
        if (onSubmitted.isEmpty()) {
            return Optional.empty();
        }
        Set<String> matched = kind == StmtKind.UPDATE
                ? sim.matchedRows(before, ref, DeviationExplainer.Keys.DROPPED).orElse(DeviationExplainer.rowIds(onSubmitted.get()))
                : DeviationExplainer.rowIds(onSubmitted.get());
        ScanWaits.Held holders = scanWaits.held(sim, done, ref, table.get(), submitted, resumed);
        List<List<String>> lockedBySelects = scanWaits.lockedBySelects(sim, done, ref, table.get(), submitted, resumed, true);
        List<List<String>> held = new ArrayList<>();
        for (List<String> row : before.get().tables().getOrDefault(table.get(), List.of())) {
            String id = row.get(row.size() - 1);
            if (matched.contains(id) && (holds(holders.oldVersions(), id) || holds(holders.newVersions(), id) || holds(lockedBySelects, id))) {
                held.add(row); // as the scan met it
            }
        }
        if (held.isEmpty()) {
            return Optional.empty();
        }
        Optional<KeyOrderScan.ClusteredKey> key = scanWaits.key(sim, ref, target.get(), before.get());
        Optional<List<String>> waitedOn = key.flatMap(k -> KeyOrderScan.firstInKeyOrder(k, held));
        Optional<KeyOrderScan.Split> split = waitedOn.flatMap(w -> KeyOrderScan.splitOnSubmitted(before.get(), after.get(), table.get(), key.get(), w));
        if (split.isEmpty()) {
            return Optional.empty();
        }
        // H2 tests a waited-for row's WHERE again only when the row it locked is not the one its scan met: one the holder
        // matched and left as it was keeps the WHERE's result from then (it waited for it, so it held), its SET computed on
        // the data as resumed (campaign h2-RU-s52-i3385: an uncorrelated EXISTS true when the scan met the row, false after).
        List<List<String>> fromWaitedOn = new ArrayList<>(split.get().fromWaitedOn());
        List<List<String>> leftAsItWas = new ArrayList<>();
        Optional<String> unconditional = StatementParts.withoutWhere(onCopy.get());
        if (unconditional.isPresent() && fromWaitedOn.remove(waitedOn.get())) {
            leftAsItWas.add(waitedOn.get());
        }
        Optional<StateDelta> first = part(sim, before.get(), ref, table.get(), copy, onCopy.get(), split.get().before());
        long firstCount = sim.copyCount;
        Optional<StateDelta> waited = first.isEmpty() ? Optional.empty()
                : part(sim, after.get(), ref, table.get(), copy, unconditional.orElse(onCopy.get()), leftAsItWas);
        long waitedCount = sim.copyCount;
        Optional<StateDelta> rest = waited.isEmpty() ? Optional.empty()
                : part(sim, after.get(), ref, table.get(), copy, onCopy.get(), fromWaitedOn);
        if (rest.isEmpty()) {
            return Optional.empty();
        }
        StateDelta both = first.get().and(waited.get()).and(rest.get());
        Optional<DbState> result = both.applyTo(after.get());
        if (result.isEmpty() || sim.effectOn(result, List.of(), DeviationExplainer.Keys.KEPT).isEmpty()) {
            return Optional.empty(); // the parts together break a key: the statement would have failed
        }
        sim.simulatedCounts.put(ref, firstCount + waitedCount + sim.copyCount);
        splits.add(ScanWaits.waitedOn(ref, table.get(), waitedOn.get()));
        return Optional.of(both);
    }

    /** The statement on {@code rows} of its table alone, every other read on {@code view}; {@link DeviationExplainer#copyCount} its count. */
    private static Optional<StateDelta> part(DeviationExplainer sim, DbState view, StmtRef ref, String table, String copy, String sql,
                                             List<List<String>> rows) throws SQLException, SetupFailedException {
        if (rows.isEmpty()) {
            sim.copyCount = 0;
            return Optional.of(new StateDelta(Map.of(), Map.of()));
        }
        return sim.effectOnCopy(view, table, copy, sql, rows, Map.of());
    }

    private static boolean holds(List<List<String>> rows, String id) {
        return rows.stream().anyMatch(r -> id.equals(r.get(r.size() - 1)));
    }
}
