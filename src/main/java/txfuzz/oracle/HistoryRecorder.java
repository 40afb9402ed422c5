package txfuzz.oracle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.SessionSlot;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.history.History;
import txfuzz.history.Op;
import txfuzz.history.Outcome;
import txfuzz.history.PredicateRead;
import txfuzz.history.Read;
import txfuzz.history.RowVersion;
import txfuzz.history.Transaction;
import txfuzz.history.WList;
import txfuzz.history.Write;
import txfuzz.history.WriteKind;
import txfuzz.model.DbState;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;
import txfuzz.dbms.ErrorClass;

/**
 * Turns the run of an instrumented case (rid/wl columns, see gen's instrumented mode and
 * {@link Tracking}) into a row-level {@link History} for the isolation checker
 * (docs/history-format.md). It is every oracle's, not one oracle's: the history is what the case's
 * row tracking recorded, read by the oracle judging its anomalies and by a pattern case's
 * realisation check alike.
 *
 * <ul>
 *   <li>{@link Tracking.Role#READ}: each result row leads with (rid, wl) per table (a triple with
 *       the table name for {@code "*"}); a {@code pred} op when the tracking names a predicate,
 *       otherwise a {@code read} per row and table (NULL rids of outer joins skipped).</li>
 *   <li>{@link Tracking.Role#POST_READ}: the rows whose wl ends with the tag. Before a deleting
 *       write: a locking read of the previous version and the tombstone when the write succeeded,
 *       an update when it failed or never ran (the rows keep the tag). Otherwise: a one-entry list
 *       is an insert, a longer one a locking read of the previous version and an update.</li>
 *   <li>{@link Tracking.Role#WRITE} with rids (INSERT … VALUES, REPLACE): an insert per rid when it
 *       succeeded.</li>
 *   <li>The final state, when it has the tracking columns (last in each table), becomes one more
 *       committed transaction that reads every table through the predicate {@code "true"}.</li>
 * </ul>
 * Ops are attributed to the write statement of their tag when the case still has it. Failed
 * statements record nothing. Whatever a reducer removed, the recorder records what is left and
 * never throws.
 */
public final class HistoryRecorder {
    private HistoryRecorder() {
    }

    /** The run's row-level history; with the sessions of an uncontrolled run. */
    public static History record(Run run) {
        return run.uncontrolled() ? record(run.testCase(), run.trace(), run.slots()) : record(run.testCase(), run.trace());
    }

    /** Controlled runs: every transaction on a session of its own. */
    public static History record(TestCase c, Trace trace) {
        Map<Integer, SessionSlot> slots = new HashMap<>();
        for (Txn t : c.transactions()) {
            slots.put(t.id(), new SessionSlot(t.id(), 0));
        }
        return record(c, trace, slots);
    }

    /** Concurrent runs: {@code slots} says which session ran each transaction (by id), and in which position. */
    public static History record(TestCase c, Trace trace, Map<Integer, SessionSlot> slots) {
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("dbms", c.dbms());
        meta.put("level", c.isolation().name());
        meta.put("seed", Long.toString(c.seed()));
        meta.put("iteration", Long.toString(c.iteration()));

        Map<String, Long> tagOwner = tagOwners(c);
        Map<StmtRef, ExecutedStmt> executed = new HashMap<>();
        for (ExecutedStmt e : trace.schedule()) {
            executed.putIfAbsent(e.ref(), e);
        }

        Map<Integer, SessionSlot> placed = placeSessions(c, slots);
        List<Transaction> out = new ArrayList<>();
        int sessions = placed.values().stream().mapToInt(SessionSlot::session).max().orElse(-1) + 1;
        out.addAll(rolledBackStatements(c, executed, tagOwner, c.transactions().size() + 2L, sessions + 1));
        long maxId = 0;
        int maxSession = -1;
        for (Txn t : c.transactions()) {
            SessionSlot slot = placed.get(t.id());
            List<String> sql = t.statements().stream().map(Stmt::sql).toList();
            List<Op> ops = new Recording(t, executed, tagOwner).ops();
            out.add(new Transaction(t.id(), slot.session(), slot.seq(), outcome(t, trace, executed), sql, ops));
            maxId = Math.max(maxId, t.id());
            maxSession = Math.max(maxSession, slot.session());
        }
        Transaction last = finalRead(c, trace.finalState(), tagOwner, maxId + 1, maxSession + 1);
        if (last != null) {
            out.add(last);
        }
        return new History(meta, out);
    }

    /** The given slots when they are usable (every transaction, no (session, seq) twice), private sessions for the rest. */
    private static Map<Integer, SessionSlot> placeSessions(TestCase c, Map<Integer, SessionSlot> slots) {
        Map<Integer, SessionSlot> placed = new HashMap<>();
        Set<SessionSlot> used = new HashSet<>();
        int maxSession = -1;
        for (Txn t : c.transactions()) {
            SessionSlot s = slots == null ? null : slots.get(t.id());
            if (s != null && used.add(s)) {
                placed.put(t.id(), s);
                maxSession = Math.max(maxSession, s.session());
            }
        }
        for (Txn t : c.transactions()) {
            if (!placed.containsKey(t.id())) {
                placed.put(t.id(), new SessionSlot(++maxSession, 0));
            }
        }
        return placed;
    }

    private static Outcome outcome(Txn t, Trace trace, Map<StmtRef, ExecutedStmt> executed) {
        TxnOutcome o = trace.outcome(t.id());
        if (o == null) {
            return Outcome.UNKNOWN;
        }
        return switch (o.status()) {
            case COMMITTED -> Outcome.COMMITTED;
            case ROLLED_BACK -> Outcome.ABORTED;
            case ABORTED -> {
                // the connection died while COMMIT was under way: the engine may have committed it
                ExecutedStmt cause = o.cause() == null ? null : executed.get(o.cause());
                boolean atCommit = o.cause() != null && o.cause().txn() == t.id() && o.cause().index() < t.statements().size()
                        && t.statements().get(o.cause().index()).kind() == StmtKind.COMMIT;
                yield atCommit && cause != null && cause.result().errorClass() == ErrorClass.CONNECTION_LOST ? Outcome.UNKNOWN : Outcome.ABORTED;
            }
        };
    }

    /**
     * A write statement that failed was rolled back by the engine, yet at READ UNCOMMITTED another
     * transaction may have read a row version it wrote in the meantime. Such versions never
     * existed in any committed state: each failed statement's tag is given to an aborted
     * transaction of its own (ids from {@code firstId}), so such a read is the aborted read (G1a)
     * it is — not a write of the statement's transaction, which may have committed. A tag also
     * written by a statement that succeeded (a DELETE's tag-update when the DELETE itself failed)
     * stays its transaction's.
     */
    private static List<Transaction> rolledBackStatements(TestCase c, Map<StmtRef, ExecutedStmt> executed, Map<String, Long> tagOwner,
                                                          long firstId, int firstSession) {
        Map<String, Boolean> onlyFailures = new LinkedHashMap<>();
        Map<String, String> sqlOf = new HashMap<>();
        for (Txn t : c.transactions()) {
            for (int i = 0; i < t.statements().size(); i++) {
                Stmt s = t.statements().get(i);
                Tracking tr = s.tracking();
                ExecutedStmt e = executed.get(new StmtRef(t.id(), i));
                boolean writesTag = tr != null && tr.tag() != null && (tr.role() == Tracking.Role.TAG
                        || (tr.role() == Tracking.Role.WRITE && (!tr.deletes() || !tr.rids().isEmpty())));
                if (!writesTag || e == null) {
                    continue;
                }
                onlyFailures.merge(tr.tag(), e.result().failed(), Boolean::logicalAnd);
                sqlOf.putIfAbsent(tr.tag(), s.sql());
            }
        }
        List<Transaction> out = new ArrayList<>();
        long id = firstId;
        int session = firstSession;
        for (var e : onlyFailures.entrySet()) {
            if (e.getValue()) {
                tagOwner.put(e.getKey(), id);
                out.add(new Transaction(id++, session++, 0, Outcome.ABORTED, List.of(sqlOf.get(e.getKey())), List.of()));
            }
        }
        return out;
    }

    /** Which transaction each tag belongs to, from the case itself (robust to renumbered statements). */
    private static Map<String, Long> tagOwners(TestCase c) {
        Map<String, Long> owners = new HashMap<>();
        for (Txn t : c.transactions()) {
            for (Stmt s : t.statements()) {
                if (s.tracking() != null && s.tracking().tag() != null) {
                    owners.putIfAbsent(s.tracking().tag(), (long) t.id());
                }
            }
        }
        return owners;
    }

    /**
     * The wl column's text (",0,1.2,3.1") as transaction ids; null when it is not a write list:
     * it must start with a comma and name only the initial state (0) and tags of the case's own
     * write statements. A reduced case may have lost a tracked column or constant; reading such a
     * value as a write list would invent versions.
     */
    static WList parse(String text, Map<String, Long> tagOwner) {
        if (text == null || !text.startsWith(",")) {
            return null;
        }
        List<Long> ids = new ArrayList<>();
        for (String entry : text.substring(1).split(",", -1)) {
            String e = entry.trim();
            Long owner = e.equals("0") ? Long.valueOf(0) : tagOwner.get(e);
            if (owner == null) {
                return null;
            }
            ids.add(owner);
        }
        return WList.of(ids);
    }

    /** The last entry of a wl text: the tag of the row's latest write. */
    private static String lastTag(String wl) {
        int comma = wl.lastIndexOf(',');
        return wl.substring(comma + 1).trim();
    }

    /** One transaction's ops. */
    private static final class Recording {
        private final Txn txn;
        private final long id;
        private final Map<StmtRef, ExecutedStmt> executed;
        private final Map<String, Long> tagOwner;
        private final List<Op> ops = new ArrayList<>();
        private final Set<Op> seen = new HashSet<>();
        /** Rows already recorded as written with a given list: a write revealed twice is recorded once. */
        private final Set<String> written = new HashSet<>();

        Recording(Txn txn, Map<StmtRef, ExecutedStmt> executed, Map<String, Long> tagOwner) {
            this.txn = txn;
            this.id = txn.id();
            this.executed = executed;
            this.tagOwner = tagOwner;
        }

        List<Op> ops() {
            List<Stmt> stmts = txn.statements();
            for (int i = 0; i < stmts.size(); i++) {
                Tracking tr = stmts.get(i).tracking();
                StmtResult r = result(i);
                if (tr == null || r == null || r.failed()) {
                    continue;
                }
                try {
                    switch (tr.role()) {
                        case READ, COMPANION_READ -> read(i, tr, r);
                        case POST_READ -> postRead(i, tr, r);
                        case MATCH_READ -> matchRead(i, tr, r);
                        case WRITE -> {
                            if (tr.deletes() && r.rows() != null) {
                                deletedRows(i, tr, r);
                            } else {
                                inserts(i, tr);
                            }
                        }
                        case TAG, VERSION_SET_READ -> {
                        }
                    }
                } catch (RuntimeException e) {
                    // a result that does not have the shape the tracking promises: record what was recorded so far
                }
            }
            return ops;
        }

        /** The statement's result, or null when it never ran. */
        private StmtResult result(int index) {
            ExecutedStmt e = executed.get(new StmtRef(txn.id(), index));
            return e == null ? null : e.result();
        }

        private boolean succeeded(int index) {
            StmtResult r = result(index);
            return r != null && !r.failed();
        }

        private void add(Op op) {
            if (op instanceof Write w && !written.add(w.table() + "\u0000" + w.row() + "\u0000" + w.wList())) {
                return;
            }
            if (seen.add(op)) {
                ops.add(op);
            }
        }

        private void read(int stmt, Tracking tr, StmtResult r) {
            if (r.rows() == null) {
                return;
            }
            List<String> tables = tr.tables();
            boolean pred = tr.predicate() != null && tables.size() == 1 && !tables.get(0).equals(Tracking.TABLE_COLUMN);
            List<RowVersion> matched = new ArrayList<>();
            Set<String> matchedRows = new HashSet<>();
            for (List<String> row : r.rows()) {
                int p = 0;
                for (String declared : tables) {
                    String table = declared;
                    if (declared.equals(Tracking.TABLE_COLUMN)) {
                        table = p < row.size() ? row.get(p) : null;
                        p++;
                    }
                    if (p + 1 >= row.size()) {
                        break;
                    }
                    String rid = row.get(p);
                    String wl = row.get(p + 1);
                    p += 2;
                    WList list = parse(wl, tagOwner);
                    if (table == null || table.isEmpty() || rid == null || rid.isEmpty() || list == null) {
                        continue; // the missing side of an outer join, or a row without tracking
                    }
                    if (pred) {
                        if (matchedRows.add(rid)) {
                            matched.add(new RowVersion(rid, list));
                        }
                    } else {
                        add(new Read(stmt, table, rid, list, tr.locking()));
                    }
                }
            }
            if (pred) {
                add(new PredicateRead(stmt, tables.get(0), tr.predicate(), tr.locking(), matched));
            }
        }

        /** The WRITE statement with {@code tag} in this transaction, or -1 (a reducer removed it). */
        private int writeOf(String tag) {
            List<Stmt> stmts = txn.statements();
            for (int i = 0; i < stmts.size(); i++) {
                Tracking t = stmts.get(i).tracking();
                if (t != null && t.role() == Tracking.Role.WRITE && tag.equals(t.tag())) {
                    return i;
                }
            }
            return -1;
        }

        private void postRead(int stmt, Tracking tr, StmtResult r) {
            if (r.rows() == null || tr.tag() == null || tr.tables().isEmpty()) {
                return;
            }
            String table = tr.tables().get(0);
            int w = writeOf(tr.tag());
            Tracking write = w < 0 ? null : txn.statements().get(w).tracking();
            boolean beforeDelete = write != null && write.deletes() && w > stmt;
            boolean deleted = beforeDelete && succeeded(w);
            // rows a later post-read of the tag still finds were not deleted after all
            Set<String> survivors = deleted ? survivors(w, tr.tag()) : Set.of();
            int at = w >= 0 ? w : stmt;
            String scan = scanPredicate(stmt, tr.tag(), write, w, beforeDelete);
            List<RowVersion> scanned = new ArrayList<>();
            boolean complete = true;
            List<Op> found = new ArrayList<>();
            for (List<String> row : r.rows()) {
                if (row.size() < 2 || row.get(0) == null || row.get(1) == null || !tr.tag().equals(lastTag(row.get(1)))) {
                    complete = false;
                    continue;
                }
                String rid = row.get(0);
                WList list = parse(row.get(1), tagOwner);
                if (list == null || list.last() != id) {
                    complete = false;
                    continue;
                }
                if (list.size() == 1 && !beforeDelete) {
                    found.add(new Write(at, table, rid, WriteKind.INSERT, WList.of(id)));
                    continue;
                }
                if (list.size() > 1) {
                    WList before = list.prefix(list.size() - 1);
                    scanned.add(new RowVersion(rid, before));
                    if (scan == null) {
                        found.add(new Read(at, table, rid, before, true));
                    }
                }
                found.add(new Write(at, table, rid, WriteKind.UPDATE, list));
                if (deleted && !survivors.contains(rid)) {
                    // The tag-update installed a version of its own, which a dirty reader can see; the
                    // DELETE then writes the tombstone on top of it (the writer twice in the list).
                    found.add(new Write(at, table, rid, WriteKind.DELETE, list.append(id)));
                }
            }
            if (scan != null) {
                if (complete) {
                    // what the write scanned comes before what it wrote (a later version of its own rows)
                    add(new PredicateRead(at, table, scan, true, scanned));
                } else {
                    for (RowVersion v : scanned) {
                        add(new Read(at, table, v.row(), v.wList(), true));
                    }
                }
            }
            found.forEach(this::add);
        }

        /**
         * The match read after an UPDATE that tags only changed rows: its rows without the tag are the
         * versions the UPDATE matched and left unchanged, read as the UPDATE's (locking, matched). Nothing
         * when the UPDATE failed (it acted on no row) or was removed, or when its WHERE is no longer the
         * match read's (a reduced case): then the match read's rows need not be rows the UPDATE matched.
         */
        private void matchRead(int stmt, Tracking tr, StmtResult r) {
            int w = tr.tag() == null ? -1 : writeOf(tr.tag());
            if (r.rows() == null || w < 0 || w > stmt || !succeeded(w) || tr.tables().isEmpty()
                    || !txn.statements().get(w).sql().endsWith(matchWhere(txn.statements().get(stmt).sql(), tr.tables().get(0)))) {
                return;
            }
            String table = tr.tables().get(0);
            for (List<String> row : r.rows()) {
                if (row.size() < 2 || row.get(0) == null || row.get(1) == null || tr.tag().equals(lastTag(row.get(1)))) {
                    continue; // a row the UPDATE changed: its post-read records it
                }
                WList list = parse(row.get(1), tagOwner);
                if (list != null) {
                    add(new Read(w, table, row.get(0), list, true, true));
                }
            }
        }

        /** A match read's " WHERE …" (or ""): between its FROM table and its lock clause. */
        private static String matchWhere(String sql, String table) {
            int from = sql.indexOf(" FROM " + table);
            int lock = Math.max(sql.lastIndexOf(" LOCK IN SHARE MODE"), sql.lastIndexOf(" FOR SHARE"));
            if (from < 0 || lock < 0) {
                return "\u0000"; // not a match read's shape: matches no UPDATE
            }
            return sql.substring(from + " FROM ".length() + table.length(), lock);
        }

        /**
         * The row-local WHERE through which the write of {@code tag} scanned its table, when this
         * post-read (at {@code stmt}) shows every row it matched: the post-read right after a
         * non-deleting write that succeeded, or the one after a DELETE's tag-update that succeeded.
         * Null otherwise (no such WHERE, or the scan did not complete).
         */
        private String scanPredicate(int stmt, String tag, Tracking write, int w, boolean beforeDelete) {
            if (write == null) {
                return null;
            }
            if (!write.deletes()) {
                return w < stmt && write.predicate() != null && succeeded(w) ? write.predicate() : null;
            }
            if (!beforeDelete) {
                return null;
            }
            List<Stmt> stmts = txn.statements();
            for (int i = stmt - 1; i >= 0; i--) {
                Tracking t = stmts.get(i).tracking();
                if (t != null && t.role() == Tracking.Role.TAG && tag.equals(t.tag())) {
                    return t.predicate() != null && succeeded(i) ? t.predicate() : null;
                }
            }
            return null;
        }

        /** Rids that a successful post-read of {@code tag} after statement {@code w} returned. */
        private Set<String> survivors(int w, String tag) {
            Set<String> out = new HashSet<>();
            List<Stmt> stmts = txn.statements();
            for (int i = w + 1; i < stmts.size(); i++) {
                Tracking t = stmts.get(i).tracking();
                StmtResult r = result(i);
                if (t != null && t.role() == Tracking.Role.POST_READ && tag.equals(t.tag()) && r != null && !r.failed() && r.rows() != null) {
                    for (List<String> row : r.rows()) {
                        if (!row.isEmpty() && row.get(0) != null) {
                            out.add(row.get(0));
                        }
                    }
                }
            }
            return out;
        }

        /**
         * {@code DELETE … RETURNING rid, wl}: each returned row is a version the DELETE read (locking)
         * and then deleted. With a row-local WHERE the rows are all it matched: one predicate read
         * first, as for a write scan; otherwise a locking read per row.
         */
        private void deletedRows(int stmt, Tracking tr, StmtResult r) {
            if (tr.tables().isEmpty()) {
                return;
            }
            String table = tr.tables().get(0);
            List<RowVersion> scanned = new ArrayList<>();
            List<Op> tombstones = new ArrayList<>();
            boolean complete = true;
            for (List<String> row : r.rows()) {
                WList before = row.size() < 2 || row.get(0) == null ? null : parse(row.get(1), tagOwner);
                if (before == null) {
                    complete = false; // not a write list (a reduced case lost a column): record nothing of it
                    continue;
                }
                scanned.add(new RowVersion(row.get(0), before));
                tombstones.add(new Write(stmt, table, row.get(0), WriteKind.DELETE, before.append(id)));
            }
            if (tr.predicate() != null && complete) {
                add(new PredicateRead(stmt, table, tr.predicate(), true, scanned));
            } else {
                scanned.forEach(v -> add(new Read(stmt, table, v.row(), v.wList(), true)));
            }
            tombstones.forEach(this::add);
        }

        private void inserts(int stmt, Tracking tr) {
            if (tr.rids().isEmpty() || tr.tables().isEmpty()) {
                return;
            }
            for (String rid : tr.rids()) {
                add(new Write(stmt, tr.tables().get(0), rid, WriteKind.INSERT, WList.of(id)));
            }
        }
    }

    /**
     * IsoRel's final read: one committed transaction reading every table through "true". Only for
     * instrumented cases whose final state has the tracking columns (the last two of each table);
     * null otherwise.
     */
    private static Transaction finalRead(TestCase c, DbState state, Map<String, Long> tagOwner, long id, int session) {
        boolean instrumented = c.transactions().stream().flatMap(t -> t.statements().stream()).anyMatch(s -> s.tracking() != null);
        if (!instrumented || state == null) {
            return null;
        }
        List<String> sql = new ArrayList<>();
        List<Op> ops = new ArrayList<>();
        for (String table : c.tables()) {
            List<List<String>> rows = state.tables().get(table);
            if (rows == null) {
                continue;
            }
            List<RowVersion> versions = new ArrayList<>();
            Set<String> rids = new HashSet<>();
            boolean tracked = true;
            for (List<String> row : rows) {
                if (row.size() < 2) {
                    tracked = false;
                    break;
                }
                String rid = row.get(row.size() - 2);
                String wl = row.get(row.size() - 1);
                WList list = wl == null || !wl.startsWith(",") ? null : parse(wl, tagOwner);
                if (list == null) {
                    tracked = false;
                    break;
                }
                if (rid != null && !rid.isEmpty() && rids.add(rid)) {
                    versions.add(new RowVersion(rid, list));
                }
            }
            if (!tracked) {
                continue;
            }
            ops.add(new PredicateRead(sql.size(), table, "true", false, versions));
            sql.add("SELECT rid, wl FROM " + table);
        }
        if (ops.isEmpty()) {
            return null;
        }
        return new Transaction(id, session, 0, Outcome.COMMITTED, sql, ops);
    }
}
