package txfuzz.reduce;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * Structural edits of a test case that keep it valid: transactions renumbered 1..n, the submitted
 * order kept as the same interleaving of what is left, BEGIN/COMMIT structure intact (an explicit
 * transaction left without data statements disappears with its BEGIN and COMMIT). An edit that
 * removes statements says where each kept one was ({@link Edit}); edits of text keep every statement
 * where it was.
 */
final class CaseEdits {
    private CaseEdits() {
    }

    /**
     * A case made by removing statements, and where each of its statements was before.
     *
     * @param testCase the edited case
     * @param previous each of its statements → the same statement in the case it was made from
     */
    record Edit(TestCase testCase, Map<StmtRef, StmtRef> previous) {
        Edit {
            previous = Map.copyOf(previous);
        }
    }

    /** The data statements (no BEGIN/COMMIT/ROLLBACK) in transaction order. */
    static List<StmtRef> dataRefs(TestCase c) {
        List<StmtRef> out = new ArrayList<>();
        for (Txn t : c.transactions()) {
            for (int i = 0; i < t.statements().size(); i++) {
                if (!t.statements().get(i).kind().isControl()) {
                    out.add(new StmtRef(t.id(), i));
                }
            }
        }
        return out;
    }

    static Edit removeTxns(TestCase c, Set<Integer> ids) {
        Set<StmtRef> refs = new HashSet<>();
        for (int id : ids) {
            Txn t = c.txn(id);
            for (int i = 0; i < t.statements().size(); i++) {
                refs.add(new StmtRef(id, i));
            }
        }
        return rebuild(c, refs, Map.of());
    }

    /** Without the given data statements; explicit transactions left empty go too. */
    static Edit removeStmts(TestCase c, Set<StmtRef> refs) {
        Set<StmtRef> gone = new HashSet<>(refs);
        for (Txn t : c.transactions()) {
            long left = 0;
            for (int i = 0; i < t.statements().size(); i++) {
                if (!t.statements().get(i).kind().isControl() && !refs.contains(new StmtRef(t.id(), i))) {
                    left++;
                }
            }
            if (left == 0) {
                for (int i = 0; i < t.statements().size(); i++) {
                    gone.add(new StmtRef(t.id(), i));
                }
            }
        }
        return rebuild(c, gone, Map.of());
    }

    static TestCase replaceSql(TestCase c, StmtRef ref, String sql) {
        return rebuild(c, Set.of(), Map.of(ref, withSql(c.stmt(ref), sql))).testCase();
    }

    /** Applies {@code f} to the SQL of every data statement (null from f: unchanged). */
    static TestCase mapSql(TestCase c, UnaryOperator<String> f) {
        Map<StmtRef, Stmt> replaced = new HashMap<>();
        for (StmtRef r : dataRefs(c)) {
            Stmt s = c.stmt(r);
            String sql = f.apply(s.sql());
            if (sql != null && !sql.equals(s.sql())) {
                replaced.put(r, withSql(s, sql));
            }
        }
        return replaced.isEmpty() ? c : rebuild(c, Set.of(), replaced).testCase();
    }

    /** An explicit BEGIN; s; COMMIT becomes the autocommit statement s. */
    static Edit toAutocommit(TestCase c, int id) {
        Txn t = c.txn(id);
        Set<StmtRef> gone = new HashSet<>();
        gone.add(new StmtRef(id, 0));
        gone.add(new StmtRef(id, t.statements().size() - 1));
        return rebuild(c, gone, Map.of());
    }

    /**
     * Drops the statements in {@code gone} (whole transactions when all their statements are gone,
     * BEGIN/COMMIT alone only for {@link #toAutocommit}), replaces those in {@code replaced},
     * renumbers and rewrites the order.
     */
    private static Edit rebuild(TestCase c, Set<StmtRef> gone, Map<StmtRef, Stmt> replaced) {
        Map<Integer, Integer> newId = new LinkedHashMap<>();
        Map<StmtRef, StmtRef> previous = new HashMap<>();
        List<Txn> txns = new ArrayList<>();
        for (Txn t : c.transactions()) {
            List<Stmt> kept = new ArrayList<>();
            List<StmtRef> keptRefs = new ArrayList<>();
            for (int i = 0; i < t.statements().size(); i++) {
                StmtRef r = new StmtRef(t.id(), i);
                if (!gone.contains(r)) {
                    kept.add(replaced.getOrDefault(r, t.statements().get(i)));
                    keptRefs.add(r);
                }
            }
            if (kept.isEmpty()) {
                continue;
            }
            int id = txns.size() + 1;
            newId.put(t.id(), id);
            txns.add(t.with(id, kept));
            for (int i = 0; i < keptRefs.size(); i++) {
                previous.put(new StmtRef(id, i), keptRefs.get(i));
            }
        }
        List<Integer> order = new ArrayList<>();
        for (StmtRef r : c.submittedOrder()) {
            if (!gone.contains(r) && newId.containsKey(r.txn())) {
                order.add(newId.get(r.txn()));
            }
        }
        return new Edit(c.withTransactions(txns, order), previous);
    }

    /**
     * A copy of {@code s} with other SQL and every other component kept, whatever components the
     * record has (instrumented cases carry extra ones).
     */
    static Stmt withSql(Stmt s, String sql) {
        try {
            RecordComponent[] comps = Stmt.class.getRecordComponents();
            Class<?>[] types = new Class<?>[comps.length];
            Object[] args = new Object[comps.length];
            for (int i = 0; i < comps.length; i++) {
                types[i] = comps[i].getType();
                args[i] = comps[i].getName().equals("sql") ? sql : comps[i].getAccessor().invoke(s);
            }
            Constructor<Stmt> k = Stmt.class.getDeclaredConstructor(types);
            return k.newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot copy a statement: " + e, e);
        }
    }

    /** Whether a statement's kind allows it to be touched by text edits (data statements only). */
    /**
     * {@code refs} grouped for removal: a write with the tag-update and post-reads that carry its
     * tag (the isolation oracle's instrumentation: without them its row versions are unattributed
     * or unseen), every other statement alone; version-set reads (the equiv oracle's) with the
     * statement they precede.
     */
    static List<List<StmtRef>> trackingUnits(TestCase c, List<StmtRef> refs) {
        Map<String, List<StmtRef>> byTag = new LinkedHashMap<>();
        List<List<StmtRef>> units = new ArrayList<>();
        List<StmtRef> versionSetReads = new ArrayList<>(); // go with the statement they precede
        for (StmtRef r : refs) {
            Tracking t = c.stmt(r).tracking();
            if (t != null && t.role() == Tracking.Role.VERSION_SET_READ) {
                versionSetReads.add(r);
                continue;
            }
            if (t == null || t.tag() == null || t.role().reads()) {
                List<StmtRef> unit = new ArrayList<>(versionSetReads);
                unit.add(r);
                units.add(unit);
                versionSetReads.clear();
                continue;
            }
            String key = r.txn() + "/" + t.tag();
            List<StmtRef> unit = byTag.get(key);
            if (unit == null) {
                unit = new ArrayList<>(versionSetReads);
                byTag.put(key, unit);
                units.add(unit);
            } else {
                unit.addAll(versionSetReads);
            }
            versionSetReads.clear();
            unit.add(r);
        }
        if (!versionSetReads.isEmpty()) {
            units.add(List.copyOf(versionSetReads));
        }
        return units;
    }

    static boolean editable(Stmt s) {
        return s.kind() != StmtKind.OTHER && !s.kind().isControl();
    }
}
