package txfuzz.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A recorded execution: transactions with their row-level operations and outcomes, and the
 * sessions they ran in (IsoRel §2.3: H = (CT, SO)). The JSON-lines file format is
 * {@link HistoryJson}; docs/history-format.md describes it.
 *
 * @param meta free-form facts about the run (dbms, version, level, seed ...); not interpreted
 */
public record History(Map<String, String> meta, List<Transaction> transactions) {
    /** The id of the (virtual, committed) transaction that loaded the initial rows. */
    public static final long INITIAL = 0;

    public History {
        // in the order given: Map.copyOf's order changes from one JVM to the next, and so did the files written from it
        if (meta != null) {
            meta.forEach((k, v) -> { // refused as Map.copyOf refused them
                Objects.requireNonNull(k);
                Objects.requireNonNull(v);
            });
        }
        meta = meta == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(meta));
        // a history read as columns keeps them, and makes a transaction only when one is asked for
        transactions = transactions instanceof HistoryColumns.Transactions ? transactions : List.copyOf(transactions);
        if (anyRepeated(transactions)) {
            throw firstRepeat(transactions);
        }
    }

    /** The first transaction, in the history's order, whose id or session and seq an earlier one has. */
    private static IllegalArgumentException firstRepeat(List<Transaction> transactions) {
        Set<Long> ids = new HashSet<>();
        Map<Integer, Set<Integer>> seqs = new HashMap<>();
        for (Transaction t : transactions) {
            if (!ids.add(t.id())) {
                return new IllegalArgumentException("two transactions with id " + t.id());
            }
            if (!seqs.computeIfAbsent(t.session(), s -> new HashSet<>()).add(t.seq())) {
                return new IllegalArgumentException("T" + t.id() + ": session " + t.session() + " already has a transaction at seq " + t.seq());
            }
        }
        throw new IllegalStateException("a repeat was found, then not");
    }

    /**
     * Whether two transactions share an id, or a session and a seq: sorted primitive keys, since sets of a million
     * boxed ids and seqs were a tenth of reading a history.
     */
    private static boolean anyRepeated(List<Transaction> transactions) {
        if (transactions instanceof HistoryColumns.Transactions view) {
            HistoryColumns c = view.columns;
            long[] slots = new long[c.size];
            for (int i = 0; i < c.size; i++) {
                slots[i] = (long) c.sessions[i] << 32 | c.seqs[i];
            }
            return repeats(Arrays.copyOf(c.ids, c.size)) || repeats(slots);
        }
        int n = transactions.size();
        long[] ids = new long[n];
        long[] slots = new long[n];
        for (int i = 0; i < n; i++) {
            Transaction t = transactions.get(i);
            ids[i] = t.id();
            slots[i] = (long) t.session() << 32 | t.seq(); // both are >= 0
        }
        return repeats(ids) || repeats(slots);
    }

    private static boolean repeats(long[] keys) {
        if (increasing(keys)) {
            return false; // as a generator or a serial run writes them: no sort needed
        }
        Arrays.sort(keys);
        for (int i = 1; i < keys.length; i++) {
            if (keys[i] == keys[i - 1]) {
                return true;
            }
        }
        return false;
    }

    private static boolean increasing(long[] keys) {
        for (int i = 1; i < keys.length; i++) {
            if (keys[i] <= keys[i - 1]) {
                return false;
            }
        }
        return true;
    }

    public static History of(List<Transaction> transactions) {
        return new History(Map.of(), transactions);
    }

    public int size() {
        return transactions.size();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Builds histories by hand (tests, synthetic benchmarks, adapters). Rows default to table "t";
     * statement indexes count up per transaction unless given; each transaction gets its own
     * session unless {@link TxnBuilder#session(int)} says otherwise, and transactions of one session
     * are ordered as they are built.
     */
    public static final class Builder {
        private final Map<String, String> meta = new LinkedHashMap<>();
        private final List<TxnBuilder> txns = new ArrayList<>();
        private final Map<Integer, Integer> nextSeq = new HashMap<>();
        private int nextPrivateSession = 1_000_000;

        public Builder meta(String key, String value) {
            meta.put(key, value);
            return this;
        }

        /** Starts transaction {@code id}; finish it with commit(), abort() or unknown(). */
        public TxnBuilder txn(long id) {
            TxnBuilder b = new TxnBuilder(this, id);
            txns.add(b);
            return b;
        }

        public History build() {
            List<Transaction> out = new ArrayList<>();
            for (TxnBuilder b : txns) {
                if (b.outcome == null) {
                    throw new IllegalStateException("T" + b.id + " was not ended with commit(), abort() or unknown()");
                }
                out.add(b.toTransaction());
            }
            return new History(meta, out);
        }

        int seqFor(int session) {
            return nextSeq.merge(session, 1, Integer::sum) - 1;
        }
    }

    /** One transaction under construction. */
    public static final class TxnBuilder {
        private final Builder parent;
        private final long id;
        private Integer session;
        private Integer seq;
        private Outcome outcome;
        private final List<String> sql = new ArrayList<>();
        private final List<Op> ops = new ArrayList<>();
        private int stmt = 0;
        private boolean explicitStmt;

        TxnBuilder(Builder parent, long id) {
            this.parent = parent;
            this.id = id;
        }

        public TxnBuilder session(int s) {
            session = s;
            seq = parent.seqFor(s);
            return this;
        }

        /** The statement index the following ops belong to (otherwise each op gets the next index). */
        public TxnBuilder stmt(int index) {
            stmt = index;
            explicitStmt = true;
            return this;
        }

        /** Adds a statement's SQL text; the following ops belong to it. */
        public TxnBuilder sql(String text) {
            sql.add(text);
            stmt = sql.size() - 1;
            explicitStmt = true;
            return this;
        }

        private int nextStmt() {
            return explicitStmt ? stmt : stmt++;
        }

        public TxnBuilder read(String row, long... wList) {
            return read("t", row, wList);
        }

        public TxnBuilder read(String table, String row, long... wList) {
            ops.add(new Read(nextStmt(), table, row, WList.of(wList), false));
            return this;
        }

        /** A locking read (SELECT ... FOR UPDATE, or a write statement's own read). */
        public TxnBuilder lockingRead(String row, long... wList) {
            ops.add(new Read(nextStmt(), "t", row, WList.of(wList), true));
            return this;
        }

        /** An UPDATE of a row whose previous version had {@code before}: installs before + [id]. */
        public TxnBuilder update(String row, long... before) {
            return update("t", row, before);
        }

        public TxnBuilder update(String table, String row, long... before) {
            ops.add(new Write(nextStmt(), table, row, WriteKind.UPDATE, WList.of(before).append(id)));
            return this;
        }

        public TxnBuilder insert(String row) {
            return insert("t", row);
        }

        public TxnBuilder insert(String table, String row) {
            ops.add(new Write(nextStmt(), table, row, WriteKind.INSERT, WList.of(id)));
            return this;
        }

        /** A DELETE as the instrumentation records it: a locking read of the version, then the tombstone. */
        public TxnBuilder delete(String row, long... before) {
            return delete("t", row, before);
        }

        public TxnBuilder delete(String table, String row, long... before) {
            int s = nextStmt();
            ops.add(new Read(s, table, row, WList.of(before), true));
            ops.add(new Write(s, table, row, WriteKind.DELETE, WList.of(before).append(id)));
            return this;
        }

        public TxnBuilder predicateRead(String table, String predicate, boolean locking, RowVersion... rows) {
            ops.add(new PredicateRead(nextStmt(), table, predicate, locking, List.of(rows)));
            return this;
        }

        public TxnBuilder op(Op op) {
            ops.add(op);
            return this;
        }

        public Builder commit() {
            outcome = Outcome.COMMITTED;
            return parent;
        }

        public Builder abort() {
            outcome = Outcome.ABORTED;
            return parent;
        }

        public Builder unknown() {
            outcome = Outcome.UNKNOWN;
            return parent;
        }

        Transaction toTransaction() {
            int s = session != null ? session : parent.nextPrivateSession++;
            int q = seq != null ? seq : 0;
            return new Transaction(id, s, q, outcome, sql, ops);
        }
    }

    /** A row as a predicate read returned it. */
    public static RowVersion row(String row, long... wList) {
        return new RowVersion(row, WList.of(wList));
    }
}
