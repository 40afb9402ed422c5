package txfuzz.oracle.wss;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import txfuzz.dbms.Database;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.SetupFailedException;
import txfuzz.model.DbState;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.oracle.wss.DeviationExplainer.Effect;

/**
 * Under dirty visibility, what a write may have read of another transaction's write (UPDATE, DELETE, INSERT, MERGE or
 * upsert) that was in flight while it ran: submitted before the reader completed, not completed before the reader began,
 * and waiting for a lock (it later completed or failed). Such a statement may be half done when the reader reads: H2
 * moves a row to a new primary key as a delete of the old row and an insert of the new one, and the delete is visible
 * while the insert waits (campaign h2-RU-s33-i9000; a MERGE's UPDATE action too, h2-RU-s59-i605); a MERGE's row inserted for one source row is visible while it waits
 * for the lock of the row another source row matches, and stays so if the MERGE then fails (campaign h2-RU-s7-i4260).
 * Each row the in-flight write targets (its effect on the data it saw when submitted) is seen as before it, as it left
 * it, or — for a DELETE, or an UPDATE or MERGE that changes the row's primary key — as absent; a row it inserts, as absent or as
 * inserted.
 *
 * <p>Sound at READ UNCOMMITTED: Adya's PL-1 proscribes only G0 (dirty writes); reading any intermediate state of another
 * transaction, even one its statement later undoes, is G1a/G1b, which only PL-2 proscribes. The reader's own changes are
 * still applied to the rows as the other effects leave them, so a reader that changed a half-written row collides and
 * explains nothing. Narrow: only rows an in-flight statement targets may differ; a committed row no such statement
 * targets that vanishes from the reader's view stays unexplained (InFlightReadsTest's negative control). At most
 * {@link #MAX_VIEWS} views are tried (six rows seen two ways each, or three seen three ways); past that only the plain
 * view is tried, and the run stays a bug candidate unless it explains it.
 */
final class InFlightReads {
    /**
     * The most views tried for one reader, the plain one included: beyond it the alternatives are not tried. A view is a
     * simulation of the reader, tried only for a violation at READ UNCOMMITTED beside a write that waited.
     */
    static final int MAX_VIEWS = 64;

    private final DeviationExplainer sim;
    /** Table (lower case) → positions of its primary-key columns, asked of the case's schema once. */
    private Map<String, List<Integer>> keyPositions;

    InFlightReads(DeviationExplainer sim) {
        this.sim = sim;
    }

    /** Whether the case has a write that could have been in flight beside another: a write that waited. */
    static boolean anyCandidate(DeviationExplainer sim) {
        return mayHaveBeenInFlight(sim).stream().anyMatch(w -> sim.testCase.stmt(w).kind().isWrite()
                && sim.trace.executed(w).map(ExecutedStmt::blocked).orElse(false));
    }

    /** One way the reader may have seen a targeted row: the change applied to its view, and its words. */
    private record RowSeen(StateDelta change, String words) {
    }

    /** A view the reader may have read, with what of the in-flight writes it shows (empty words: the plain view). */
    record Alternative(DbState view, List<String> seen) {
    }

    /**
     * The effect of {@code reader} (a write of a committed transaction that succeeded, with a recorded update count) on
     * {@code view} or on one of the views the in-flight writes allow: the plain view first; then, where its count is not
     * the recorded one, the first alternative whose count is. {@code chosen} gets the words of the alternative taken
     * (nothing for the plain view). Where no alternative matches the count, the plain view's effect. Where the plain view's
     * count is the recorded one but a committed reader's rows are not the final state's, an alternative with that count
     * whose rows are is taken: an UPDATE without WHERE counts every row whatever it read, and only its values tell what
     * it read (campaign h2-RU-s101-i1720: a SET subquery read a row a waiting MERGE had inserted for one source row).
     */
    Optional<StateDelta> effect(List<Effect> done, StmtRef reader, Optional<DbState> view, List<String> chosen)
            throws SQLException, SetupFailedException {
        Optional<StateDelta> plain = sim.effectOn(view, List.of(reader));
        Optional<Long> recorded = sim.actualCount(reader);
        Long plainCount = sim.simulatedCounts.get(reader);
        boolean plainFits = plain.isPresent() && recorded.isPresent() && recorded.get().equals(plainCount);
        if (view.isEmpty() || recorded.isEmpty() || !sim.withRowIds
                || plainFits && (!sim.committed.contains(reader.txn()) || addedRowsKept(plain.get()))) {
            return plain;
        }
        Optional<StateDelta> firstFit = Optional.empty();
        List<String> firstFitSeen = List.of();
        for (Alternative a : alternatives(done, reader, view.get())) {
            Optional<StateDelta> d = sim.effectOn(Optional.of(a.view()), List.of(reader));
            if (d.isPresent() && recorded.get().equals(sim.simulatedCounts.get(reader))) {
                // of the views that give the recorded count, one whose rows the committed reader added are in the final state
                // first: another would only fail the state's comparison later (a MERGE's half-done rows give the same count
                // whichever of them the reader saw)
                if (!sim.committed.contains(reader.txn()) || addedRowsKept(d.get())) {
                    chosen.addAll(a.seen());
                    return d;
                }
                if (firstFit.isEmpty() && !plainFits) {
                    firstFit = d;
                    firstFitSeen = a.seen();
                }
            }
        }
        if (firstFit.isPresent()) {
            sim.simulatedCounts.put(reader, recorded.get());
            chosen.addAll(firstFitSeen);
            return firstFit;
        }
        if (plainCount == null) {
            sim.simulatedCounts.remove(reader);
        } else {
            sim.simulatedCounts.put(reader, plainCount);
        }
        return plain;
    }

    /** Whether every row {@code d} adds (its values, without the row id the simulation adds) is in the run's final state. */
    private boolean addedRowsKept(StateDelta d) {
        for (var e : d.added().entrySet()) {
            List<List<String>> kept = sim.trace.finalState().tables().getOrDefault(e.getKey(), List.of());
            for (List<String> row : e.getValue()) {
                if (!kept.contains(sim.withRowIds ? row.subList(0, row.size() - 1) : row)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The views other than {@code view} itself that {@code reader} may have read; none past the bound. */
    List<Alternative> alternatives(List<Effect> done, StmtRef reader, DbState view) throws SQLException, SetupFailedException {
        ExecutedStmt r = sim.trace.executed(reader).orElseThrow();
        int began = r.completedBefore();
        int ended = sim.trace.position(reader);
        List<List<RowSeen>> rows = new ArrayList<>();
        long views = 1;
        for (StmtRef w : mayHaveBeenInFlight(sim)) {
            StmtKind kind = sim.testCase.stmt(w).kind();
            ExecutedStmt e = sim.trace.executed(w).orElseThrow();
            // a deadlock's victim is undone when it ends: in place only while it waited, so seen only by a reader sent while it
            // waited (one sent before it that waited and resumed after it ended read before it came, or after it was undone)
            boolean sentBefore = lostAConflict(e) ? e.submitSeq() < r.submitSeq() : e.completedBefore() <= ended;
            boolean inFlight = w.txn() != reader.txn() && e.blocked() && sentBefore && sim.trace.position(w) >= began;
            if (!inFlight || !kind.isWrite()) {
                continue;
            }
            // what it did to the rows it targets, on the data it saw when submitted; run even where it failed in the end
            Optional<DbState> seenByIt = sim.view(done, w.txn(), e.completedBefore(), true);
            Optional<StateDelta> change = sim.attemptOn(seenByIt, w);
            if (change.isEmpty() && kind == StmtKind.INSERT) {
                change = rowByRow(seenByIt, w);
            }
            if (change.isEmpty()) {
                continue;
            }
            for (List<RowSeen> ways : rowsSeen(w, kind, change.get())) {
                rows.add(ways);
                views *= 1 + ways.size();
                if (views > MAX_VIEWS) {
                    return List.of(); // too many ways to read them: only the plain view is tried
                }
            }
        }
        List<Alternative> out = new ArrayList<>();
        combine(rows, 0, view, new ArrayList<>(), out);
        out.removeIf(a -> a.seen().isEmpty()); // the plain view itself
        return out;
    }

    /**
     * The writes another statement may have read in flight: every write the simulations run, and a write that waited and
     * then lost a deadlock or another conflict, which they leave out (its transaction was undone), though while it waited
     * what it had done before its wait was in place (campaign mariadb-RU-s73-i256: an INSERT whose row was in the clustered
     * index while it waited on a unique secondary key, then a deadlock's victim; a dirty reader copied the row).
     */
    private static List<StmtRef> mayHaveBeenInFlight(DeviationExplainer sim) {
        List<StmtRef> writes = new ArrayList<>(sim.writesInCompletionOrder(true));
        for (ExecutedStmt e : sim.trace.schedule()) {
            if (lostAConflict(e) && sim.testCase.stmt(e.ref()).kind().isWrite() && !writes.contains(e.ref())) {
                writes.add(e.ref());
            }
        }
        writes.sort((a, b) -> Integer.compare(sim.trace.position(a), sim.trace.position(b)));
        return writes;
    }

    /** Whether {@code e} waited and then failed with a deadlock or another conflict (its transaction undone). */
    private static boolean lostAConflict(ExecutedStmt e) {
        return e.blocked() && e.result().failed() && e.result().errorClass() != null && e.result().errorClass().isConcurrencyConflict();
    }

    /**
     * A multi-row {@code INSERT … VALUES} that fails on the data it saw (a key another transaction holds, where the engine keeps
     * the keys in its simulations) had inserted, by then, the rows of its VALUES before the failing one, which a dirty reader
     * may have seen (campaign mariadb-RU-s62-i4604: the INSERT of ('', 0), ('a', 7) waits on ('a', 7) with ('', 0) in place).
     * Each row that an INSERT of it alone would insert; empty when none would, or the statement is not of that form.
     */
    private Optional<StateDelta> rowByRow(Optional<DbState> view, StmtRef w) throws SQLException, SetupFailedException {
        // getValues() casts the INSERT's source to VALUES: asked only once the source is known to be one
        if (!(txfuzz.gen.StatementStructure.parse(sim.testCase.stmt(w).sql()) instanceof net.sf.jsqlparser.statement.insert.Insert insert)
                || !(insert.getSelect() instanceof net.sf.jsqlparser.statement.select.Values values)
                || insert.getDuplicateUpdateSets() != null || insert.getConflictAction() != null || insert.isModifierIgnore()
                || values.getExpressions() == null || values.getExpressions().size() < 2
                // one row's VALUES (a, b) lists its values, not rows: each row of several is a parenthesed list
                || !values.getExpressions().stream().allMatch(e -> e instanceof net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList)) {
            return Optional.empty();
        }
        String columns = insert.getColumns() == null || insert.getColumns().isEmpty() ? "" : " (" + insert.getColumns() + ")";
        Optional<StateDelta> out = Optional.empty();
        for (Object row : values.getExpressions()) {
            String single = "INSERT INTO " + insert.getTable() + columns + " VALUES " + row;
            Optional<StateDelta> d = sim.attemptOn(view, w, single);
            if (d.isPresent()) {
                out = Optional.of(out.map(o -> o.and(d.get())).orElse(d.get()));
            }
        }
        return out;
    }

    private void combine(List<List<RowSeen>> rows, int i, DbState view, List<String> seen, List<Alternative> out) {
        if (i == rows.size()) {
            out.add(new Alternative(view, List.copyOf(seen)));
            return;
        }
        combine(rows, i + 1, view, seen, out); // this row as before the in-flight write
        for (RowSeen s : rows.get(i)) {
            Optional<DbState> v = s.change().applyTo(view);
            if (v.isPresent()) {
                seen.add(s.words());
                combine(rows, i + 1, v.get(), seen, out);
                seen.remove(seen.size() - 1);
            }
        }
    }

    /** Per row {@code w} changed or inserted (by identity), the ways other than "before it" a reader may have seen it. */
    private List<List<RowSeen>> rowsSeen(StmtRef w, StmtKind kind, StateDelta change) throws SQLException {
        List<List<RowSeen>> out = new ArrayList<>();
        for (var e : change.added().entrySet()) {
            String table = e.getKey();
            Set<String> replaced = new HashSet<>();
            change.removed().getOrDefault(table, List.of()).forEach(old -> replaced.add(old.get(old.size() - 1)));
            for (List<String> row : e.getValue()) {
                if (!replaced.contains(row.get(row.size() - 1))) {
                    out.add(List.of(new RowSeen(new StateDelta(Map.of(), Map.of(table, List.of(row))),
                            table + " row " + shown(row) + " already inserted by " + w)));
                }
            }
        }
        for (var e : change.removed().entrySet()) {
            String table = e.getKey();
            List<List<String>> added = change.added().getOrDefault(table, List.of());
            for (List<String> old : e.getValue()) {
                String id = old.get(old.size() - 1);
                Optional<List<String>> now = added.stream().filter(row -> id.equals(row.get(row.size() - 1))).findFirst();
                StateDelta gone = new StateDelta(Map.of(table, List.of(old)), Map.of());
                List<RowSeen> ways = new ArrayList<>();
                if (now.isEmpty()) {
                    ways.add(new RowSeen(gone, table + " row " + shown(old) + " already deleted by " + w));
                } else {
                    ways.add(new RowSeen(new StateDelta(Map.of(table, List.of(old)), Map.of(table, List.of(now.get()))),
                            table + " row " + shown(old) + " already changed by " + w));
                    if (movesRows(w, kind) && keyChanged(table, old, now.get())) {
                        // moved to a new key as a delete and an insert: the delete done, the insert not yet
                        ways.add(new RowSeen(gone, table + " row " + shown(old) + " deleted but not yet inserted at its new key by " + w));
                    }
                }
                out.add(ways);
            }
        }
        return out;
    }

    /**
     * Whether {@code w} changes rows in place, as an UPDATE or a MERGE's UPDATE action does: H2 moves a row to a new primary key
     * as a delete and an insert either way (a MERGE measured with plain JDBC, campaign h2-RU-s59-i605: while it waits to insert
     * key 6, a reader finds the row it took key 6 from gone).
     */
    private boolean movesRows(StmtRef w, StmtKind kind) {
        return kind == StmtKind.UPDATE || kind == StmtKind.UPSERT && sim.testCase.stmt(w).sql().trim().toUpperCase(Locale.ROOT).startsWith("MERGE");
    }

    private static String shown(List<String> row) {
        return "(" + String.join(", ", row.subList(0, row.size() - 1).stream().map(v -> v == null ? "NULL" : v).toList()) + ")";
    }

    private boolean keyChanged(String table, List<String> old, List<String> now) throws SQLException {
        List<Integer> key = keyPositions().getOrDefault(table.toLowerCase(Locale.ROOT), List.of());
        return key.stream().anyMatch(i -> !Objects.equals(old.get(i), now.get(i)));
    }

    /** The primary-key columns of the case's tables, by position; none when they cannot be read. */
    private Map<String, List<Integer>> keyPositions() {
        if (keyPositions != null) {
            return keyPositions;
        }
        keyPositions = new HashMap<>();
        try (Database db = sim.target.freshDatabase(); Connection c = db.connect(sim.testCase.isolation(), sim.testCase.mode());
             Statement s = c.createStatement()) {
            for (String sql : sim.testCase.setup()) {
                s.execute(sql);
            }
            for (String t : sim.testCase.tables()) {
                List<String> names = KeyOrderScan.keyColumns(sim.target.engine(), c, t).stream().map(n -> n.toLowerCase(Locale.ROOT)).toList();
                Map<String, Integer> position = new LinkedHashMap<>();
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + sim.target.quote(t) + " WHERE 1 = 0")) {
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        position.put(rs.getMetaData().getColumnName(i).toLowerCase(Locale.ROOT), i - 1);
                    }
                }
                if (position.keySet().containsAll(names)) {
                    keyPositions.put(t.toLowerCase(Locale.ROOT), names.stream().map(position::get).toList());
                }
            }
        } catch (SQLException | RuntimeException e) {
            keyPositions = Map.of(); // no key known: an UPDATE's row is never taken as moved
        }
        return keyPositions;
    }
}
