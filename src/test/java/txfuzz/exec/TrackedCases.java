package txfuzz.exec;

import java.util.ArrayList;
import java.util.List;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * Hand-written instrumented cases: statements with their {@link Tracking}, as the generator's
 * instrumented mode writes them. Transaction ids and statement indexes are the caller's to keep
 * in step with the tags.
 */
public final class TrackedCases {
    private final String dbms;
    private IsolationLevel level = IsolationLevel.READ_COMMITTED;
    private String mode = "default";
    private final List<String> tables = new ArrayList<>();
    private final List<String> setup = new ArrayList<>();
    private final List<Txn> txns = new ArrayList<>();
    private List<Stmt> current;

    private TrackedCases(String dbms) {
        this.dbms = dbms;
    }

    public static TrackedCases on(String dbms) {
        return new TrackedCases(dbms);
    }

    public TrackedCases level(IsolationLevel l) {
        level = l;
        return this;
    }

    public TrackedCases mode(String m) {
        mode = m;
        return this;
    }

    public TrackedCases table(String name) {
        tables.add(name);
        return this;
    }

    public TrackedCases setup(String... sql) {
        setup.addAll(List.of(sql));
        return this;
    }

    /** Starts the next explicit transaction (BEGIN is statement 0). */
    public TrackedCases begin() {
        current = new ArrayList<>();
        current.add(Stmt.begin());
        return this;
    }

    /** The open transaction's statements so far, to add one the helpers do not write. */
    public List<Stmt> current() {
        return current;
    }

    /** Index the next statement gets. */
    public int next() {
        return current.size();
    }

    public TrackedCases plain(String sql) {
        current.add(Stmt.of(Cases.kindOf(sql), sql));
        return this;
    }

    public TrackedCases read(String sql, String predicate, boolean locking, String... tables) {
        current.add(Stmt.of(StmtKind.SELECT, sql, Tracking.read(List.of(tables), locking, predicate)));
        return this;
    }

    public TrackedCases write(String sql, String table, String tag, List<String> rids, boolean deletes) {
        current.add(Stmt.of(Cases.kindOf(sql), sql, Tracking.write(table, tag, rids, deletes)));
        return this;
    }

    /** A non-deleting write whose row-local WHERE {@code scanPredicate} selects the rows it writes. */
    public TrackedCases writeScanning(String sql, String table, String tag, String scanPredicate) {
        current.add(Stmt.of(Cases.kindOf(sql), sql, Tracking.write(table, tag, List.of(), false, scanPredicate)));
        return this;
    }

    /** A DELETE's tag-update whose WHERE is row-local: {@code scanPredicate}, its normalised text. */
    public TrackedCases tagScanning(String table, String where, String tag, String scanPredicate) {
        current.add(Stmt.of(StmtKind.UPDATE, "UPDATE " + table + " SET wl = wl || '," + tag + "'" + where, Tracking.tag(table, tag, scanPredicate)));
        return this;
    }

    public TrackedCases tag(String table, String where, String tag) {
        current.add(Stmt.of(StmtKind.UPDATE, "UPDATE " + table + " SET wl = wl || '," + tag + "'" + where, Tracking.tag(table, tag)));
        return this;
    }

    public TrackedCases postRead(String table, String tag) {
        current.add(Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM " + table + " WHERE wl LIKE '%," + tag + "'", Tracking.postRead(table, tag)));
        return this;
    }

    /**
     * The match read of the UPDATE with {@code tag} (an engine that leaves unchanged rows unwritten) whose
     * WHERE is {@code where} (" WHERE ...", or "" for none), {@code predicate} normalised.
     */
    public TrackedCases matchRead(String table, String tag, String where, String predicate) {
        current.add(Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM " + table + where + " LOCK IN SHARE MODE SKIP LOCKED",
                Tracking.matchRead(table, tag, predicate)));
        return this;
    }

    public TrackedCases commit() {
        current.add(Stmt.commit());
        txns.add(new Txn(txns.size() + 1, current));
        return this;
    }

    public TrackedCases rollback() {
        current.add(Stmt.rollback());
        txns.add(new Txn(txns.size() + 1, current));
        return this;
    }

    /** The transactions one after another: T1's statements, then T2's, … */
    public TestCase serial() {
        List<Integer> order = new ArrayList<>();
        for (Txn t : txns) {
            for (int i = 0; i < t.statements().size(); i++) {
                order.add(t.id());
            }
        }
        return order(order.toArray(Integer[]::new));
    }

    public TestCase order(Integer... order) {
        return new TestCase(TestCase.FORMAT_VERSION, dbms, 0, 0, level, mode, null, tables, setup, txns, List.of(order));
    }
}
