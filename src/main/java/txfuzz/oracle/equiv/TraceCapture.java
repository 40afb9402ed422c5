package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.model.Stmt;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.TrackedGroups;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * Turns the run of an instrumented case with {@linkplain VersionSetReads version-set reads} into an
 * {@link Execution}: TxCheck's item-tracking and version-set tracking (OSDI 2023 §3.2) read off
 * txfuzz's row tracking. An item is (table, rid, wl): the row identity and its write list, which
 * every write extends by its own tag, so each write installs a version no other statement has.
 *
 * <ul>
 *   <li>a read's output: the (rid, wl) items its rows lead with;</li>
 *   <li>a write's Before-Write Read: the versions it replaced — the rows its post-read shows without
 *       its tag, or what a {@code DELETE … RETURNING rid, wl} returned; its After-Write Read: the
 *       versions it installed — the post-read's rows, or the rids of an {@code INSERT … VALUES} with
 *       the list {@code ,tag};</li>
 *   <li>its version-set read: the (rid, wl) of every row of each table, right before it.</li>
 * </ul>
 * Every statement counts as a predicate operation and every write as a value write: without the
 * statement's syntax tree this says "may depend on the versions it saw", which only adds
 * dependencies (§3.3: such edges only remove orders). A statement is taken as blocked — its
 * version sets may not be what it acted on — when it or its companions waited, when it failed with
 * a concurrency conflict or on a constraint (engines check keys against the newest committed data,
 * not the statement's view: at snapshot levels a key a concurrent transaction committed fails an
 * INSERT whose version sets do not show it), or when another transaction's statement completed
 * between its first version-set read and its own completion.
 */
public final class TraceCapture {
    private TraceCapture() {
    }

    /**
     * @param c      the case that ran, with version-set reads
     * @param trace  its run
     * @param origin the identity each statement of {@code c} has in the case the oracle judges
     *               (identity when {@code c} is that case)
     * @return empty when the run cannot be judged (a transaction whose end is unknown, a program
     *         statement without row tracking)
     */
    public static Optional<Execution> capture(TestCase c, Trace trace, UnaryOperator<StmtRef> origin) {
        return capture(c, trace, origin, false);
    }

    /**
     * As {@link #capture(TestCase, Trace, UnaryOperator)}, on an engine whose locking reads and writes
     * read the newest committed version of each row rather than the transaction's snapshot
     * ({@code currentReads}, {@link txfuzz.dbms.Feature#CURRENT_READS}). A version-set read is a plain
     * read: it shows the snapshot. For a statement that reads the newest committed versions it is that
     * statement's version set only while the two agree; where a transaction that committed before the
     * version-set read changed what the snapshot shows (a version it replaced or deleted, a version or
     * row it installed that the snapshot lacks), the capture cannot place what the statement read, and
     * the statement is taken as not comparable (blocked: decycling removes it), never as a difference.
     * A locking version-set read would read the right versions, but it would lock every row of every
     * table and so change what the engine does.
     */
    public static Optional<Execution> capture(TestCase c, Trace trace, UnaryOperator<StmtRef> origin, boolean currentReads) {
        Map<StmtRef, ExecutedStmt> executed = new HashMap<>();
        Map<StmtRef, Integer> position = new HashMap<>();
        for (int i = 0; i < trace.schedule().size(); i++) {
            ExecutedStmt e = trace.schedule().get(i);
            executed.putIfAbsent(e.ref(), e);
            position.putIfAbsent(e.ref(), i);
        }
        Map<Integer, TxnEnd> ends = new LinkedHashMap<>();
        for (Txn t : c.transactions()) {
            TxnOutcome o = trace.outcome(t.id());
            if (o == null) {
                return Optional.empty();
            }
            ends.put(t.id(), o.status().committed() ? TxnEnd.COMMITTED : TxnEnd.ABORTED);
        }
        List<StmtExec> stmts = new ArrayList<>();
        Map<StmtRef, StmtOutcome> outcomes = new LinkedHashMap<>();
        Map<StmtExec, Integer> current = new HashMap<>(); // statements that read the newest committed versions: their first VSR's position
        for (TrackedGroups.Group g : StatementGroups.of(c).groups()) {
            ExecutedStmt main = executed.get(g.main());
            if (main == null) {
                continue; // never ran: its transaction ended before it
            }
            Tracking tr = c.stmt(g.main()).tracking();
            if (tr == null || !(tr.role() == Tracking.Role.READ || tr.role() == Tracking.Role.WRITE)) {
                return Optional.empty();
            }
            StmtRef ref = origin.apply(g.main());
            StmtExec.Builder b = tr.role() == Tracking.Role.READ ? StmtExec.read(ref.txn(), ref.index())
                    : StmtExec.write(ref.txn(), ref.index(), tr.tables().get(0));
            b.sql(c.stmt(g.main()).sql()).predicate().completion(position.get(g.main()));
            if (blocked(c, g, executed, position, trace)) {
                b.blocked();
            }
            for (StmtRef v : g.vsrs()) {
                Map<String, Set<Item>> sets = versionSets(c.stmt(v).tracking().tables(), executed.get(v));
                if (sets == null) {
                    return Optional.empty();
                }
                sets.forEach((table, items) -> b.vsr(table, items.toArray(Item[]::new)));
            }
            if (tr.role() == Tracking.Role.WRITE) {
                writeItems(c, g, tr, executed, b);
            } else if (!main.result().failed()) {
                b.reads(readItems(tr, main.result()).toArray(Item[]::new));
            }
            StmtExec built = b.build();
            stmts.add(built);
            outcomes.put(ref, outcome(tr, main.result()));
            if (currentReads && !g.vsrs().isEmpty() && (tr.role() == Tracking.Role.WRITE || tr.locking()) && position.get(g.first()) != null) {
                current.put(built, position.get(g.first()));
            }
        }
        if (!current.isEmpty()) {
            Map<Integer, Integer> committedAt = commitPositions(c, trace);
            stmts.replaceAll(x -> current.containsKey(x) && !x.blocked()
                    && snapshotIsStale(x, current.get(x), stmts, committedAt) ? x.asBlocked() : x);
        }
        return Optional.of(new Execution(stmts, ends, new RunResult(outcomes, trace.finalState())));
    }

    /** Per transaction that committed, the position of its COMMIT in the schedule. */
    private static Map<Integer, Integer> commitPositions(TestCase c, Trace trace) {
        Map<Integer, Integer> out = new HashMap<>();
        for (int i = 0; i < trace.schedule().size(); i++) {
            ExecutedStmt e = trace.schedule().get(i);
            if (c.stmt(e.ref()).kind() == txfuzz.model.StmtKind.COMMIT && !e.result().failed()) {
                TxnOutcome o = trace.outcome(e.ref().txn());
                if (o != null && o.status().committed()) {
                    out.put(e.ref().txn(), i);
                }
            }
        }
        return out;
    }

    /**
     * Whether {@code s}'s version-set reads, taken at {@code at}, may show another state than the newest
     * committed one: a transaction other than {@code s}'s that committed before {@code at} replaced or
     * deleted a version they show, or installed a version (or a row) they lack or show older.
     */
    private static boolean snapshotIsStale(StmtExec s, int at, List<StmtExec> all, Map<Integer, Integer> committedAt) {
        Map<String, Map<String, String>> shown = new HashMap<>(); // table -> key -> version
        for (VersionSet v : s.vsr()) {
            Map<String, String> rows = shown.computeIfAbsent(v.table(), k -> new HashMap<>());
            v.items().forEach(i -> rows.put(i.key(), i.version()));
        }
        Set<String> replaced = new java.util.HashSet<>(); // table/key of every version some committed write replaced
        List<StmtExec> earlier = new ArrayList<>();
        for (StmtExec w : all) {
            Integer committed = committedAt.get(w.ref().txn());
            boolean own = w.ref().txn() == s.ref().txn();
            if (w.isWrite() && (own ? w.completion() < s.completion() : committed != null && committed < at)) {
                w.bwr().forEach(i -> replaced.add(i.table() + "/" + i.key()));
                if (!own) {
                    earlier.add(w);
                }
            }
        }
        for (StmtExec w : earlier) {
            for (Item i : w.bwr()) {
                Map<String, String> rows = shown.get(i.table());
                if (rows != null && i.version().equals(rows.get(i.key()))) {
                    return true; // the snapshot still shows the version w replaced
                }
            }
            for (Item i : w.awr()) {
                Map<String, String> rows = shown.get(i.table());
                if (rows == null) {
                    continue;
                }
                String v = rows.get(i.key());
                if (v == null ? !replaced.contains(i.table() + "/" + i.key()) : !v.startsWith(i.version())) {
                    return true; // the snapshot lacks w's version (or its row), and no committed write replaced it since
                }
            }
        }
        return false;
    }

    /** What a program statement gave, as the oracle compares it. */
    static StmtOutcome outcome(Tracking tr, StmtResult r) {
        if (r.failed()) {
            return StmtOutcome.error(r.errorClass().name());
        }
        if (tr != null && tr.role() == Tracking.Role.READ && r.rows() != null) {
            return StmtOutcome.rows(r.rows());
        }
        return StmtOutcome.affected(r.updateCount());
    }

    private static boolean blocked(TestCase c, TrackedGroups.Group g, Map<StmtRef, ExecutedStmt> executed, Map<StmtRef, Integer> position,
                                   Trace trace) {
        for (StmtRef r : g.all()) {
            ExecutedStmt e = executed.get(r);
            if (e != null && (e.blocked() || (e.result().failed() && (e.result().errorClass().isConcurrencyConflict()
                    || e.result().errorClass() == txfuzz.dbms.ErrorClass.CONSTRAINT)))) {
                return true;
            }
        }
        Integer from = position.get(g.first());
        Integer to = position.get(g.main());
        if (from == null || to == null) {
            return true;
        }
        for (int i = from + 1; i < to; i++) {
            if (trace.schedule().get(i).ref().txn() != g.main().txn()) {
                return true;
            }
        }
        return false;
    }

    /**
     * What a version-set read of {@code tables} showed, per table in their order (a table's set is empty
     * when the read failed or never ran). Of more than one table its rows lead with their table's name;
     * an engine may pad that name to the longest one's length (a CHAR), hence the strip. Null when a
     * row names no table of the read: the run cannot be captured (the oracle reports such a row as a wrong
     * result before it captures: {@link VersionSetReads#misnamedRow}).
     */
    private static Map<String, Set<Item>> versionSets(List<String> tables, ExecutedStmt e) {
        Map<String, Set<Item>> out = new LinkedHashMap<>();
        tables.forEach(t -> out.put(t, new LinkedHashSet<>()));
        if (e == null || e.result().failed() || e.result().rows() == null) {
            return out;
        }
        boolean named = VersionSetReads.rowsLeadWithTable(tables);
        for (List<String> row : e.result().rows()) {
            String table = named ? (row.get(0) == null ? null : row.get(0).stripTrailing()) : tables.get(0);
            int p = named ? 1 : 0;
            Set<Item> items = out.get(table);
            if (items == null) {
                return null;
            }
            items.add(Item.of(table, row.get(p), row.get(p + 1)));
        }
        return out;
    }

    private static List<Item> readItems(Tracking tr, StmtResult r) {
        List<Item> out = new ArrayList<>();
        if (r.rows() == null) {
            return out;
        }
        for (List<String> row : r.rows()) {
            int p = 0;
            for (String declared : tr.tables()) {
                String table = declared;
                if (Tracking.TABLE_COLUMN.equals(declared)) {
                    table = row.get(p++);
                }
                String rid = row.get(p);
                String wl = row.get(p + 1);
                p += 2;
                if (rid != null && wl != null && table != null) {
                    out.add(Item.of(table, rid, wl));
                }
            }
        }
        return out;
    }

    private static void writeItems(TestCase c, TrackedGroups.Group g, Tracking tr, Map<StmtRef, ExecutedStmt> executed, StmtExec.Builder b) {
        String table = tr.tables().get(0);
        String suffix = "," + tr.tag();
        StmtResult main = executed.get(g.main()).result();
        boolean failed = main.failed();
        boolean tagged = g.members().stream().anyMatch(m -> c.stmt(m).tracking() != null && c.stmt(m).tracking().role() == Tracking.Role.TAG);
        if (failed && !(tr.deletes() && tagged)) {
            return; // the statement changed nothing
        }
        // A deleting write whose DELETE failed after its tag-update: the tagged versions stay, installed by the group.
        boolean keepsTagged = tr.deletes() && failed;
        boolean inserts = !tr.rids().isEmpty();
        if (tr.deletes() && !inserts && !failed) {
            b.delete();
        }
        if (tr.deletes() && !failed && main.rows() != null) {
            main.rows().forEach(r -> b.bwr(Item.of(table, r.get(0), r.get(1)))); // DELETE … RETURNING rid, wl
        }
        for (StmtRef m : g.members()) {
            Stmt s = c.stmt(m);
            ExecutedStmt e = executed.get(m);
            if (s.tracking() == null || s.tracking().role() != Tracking.Role.POST_READ || e == null || e.result().failed()
                    || e.result().rows() == null) {
                continue;
            }
            for (List<String> r : e.result().rows()) {
                String rid = r.get(0);
                String wl = r.get(1);
                if (rid == null || wl == null || !wl.endsWith(suffix)) {
                    continue;
                }
                String before = wl.substring(0, wl.length() - suffix.length());
                if (!before.isEmpty()) {
                    b.bwr(Item.of(table, rid, before));
                }
                if (!tr.deletes() || keepsTagged) {
                    b.awr(Item.of(table, rid, wl));
                }
            }
        }
        if (inserts && !failed) {
            tr.rids().forEach(rid -> b.awr(Item.of(table, rid, suffix)));
        }
    }
}
