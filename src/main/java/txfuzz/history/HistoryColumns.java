package txfuzz.history;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;

/**
 * A history as primitive columns, which is what the checker infers from: transactions and operations as
 * indices, rows numbered, and a wList as a length on its row's committed order. The compact reader fills them
 * straight from the file; a history made of objects (the isolation oracle's, JSON lines) goes through
 * {@link #of(History)}, so there is one inference for both. A history of ten million transactions as
 * {@code Transaction}/{@code Op}/{@code WList} objects does not fit the default heap; as columns it is a few
 * ints per operation. {@link Transaction}s are made one at a time, when asked for (a finding's explanation,
 * a caller of {@link History#transactions()}).
 *
 * <p>An operation's wList is the first {@code len} entries of its row's order ({@link #rowOrder}), the
 * versions committed (and unknown) transactions were seen with, which every consistent observation is a
 * prefix of; a list that is not (an aborted writer's version, a contradiction) is kept apart, its {@code len}
 * then {@code -(k + 1)} for {@link #ownLists}' entry k.
 */
final class HistoryColumns {
    /** An operation's kind, bits 0–1. A predicate read is its header (stmt, table, predicate) followed by a {@code PRED_ROW} per row. */
    static final int READ = 0, WRITE = 1, PRED = 2, PRED_ROW = 3;
    /** Read and predicate flags. */
    static final int LOCKING = 4, MATCHED = 8;
    /** A write's kind ({@link WriteKind#ordinal()}) is bits 2–3. */
    static final int WRITE_KIND_SHIFT = 2;
    private static final Outcome[] OUTCOMES = Outcome.values();
    private static final WriteKind[] WRITE_KINDS = WriteKind.values();

    final Map<String, String> meta;
    /** Transactions. */
    final int size;
    final long[] ids;
    final int[] sessions;
    final int[] seqs;
    final byte[] outcomes;
    /** Each transaction's statements; null while none has any (a synthetic history's: 40 MB of references to one empty list at ten million). */
    private final List<String>[] sql;
    /** Transaction i's operations are {@code opStart[i]} up to {@code opStart[i + 1]}. */
    final int[] opStart;
    /**
     * Operations, three ints each in blocks: transaction and code (kind and flags), row (a predicate header: its table's
     * string), wList length (a header: its predicate's string, or -1). Side by side because the inference visits a row's
     * operations, scattered over the history, and waits on memory: one cache line per operation, not one per column; in
     * blocks under the collector's large-object size, so that growing never copies them all.
     */
    final int ops;
    private final int[][] opBlocks;
    /**
     * The operations' statements, a byte each beside the blocks ({@link #STMT_ESCAPE} for one of {@link #bigStmtOps}): only
     * explanations and validation read them, and as a fourth int they were 360 MB of the 2 GB a history of ten million
     * transactions holds.
     */
    private final byte[][] stmtBlocks;
    /** The operations whose statement is {@link #STMT_ESCAPE} or more, ascending, and their statements. */
    private final int[] bigStmtOps;
    private final int[] bigStmts;
    /** Rows: table and row id (string numbers), and the row's order. */
    final int rows;
    final int[] rowTable;
    final int[] rowName;
    final long[][] rowOrder;
    final long[][] ownLists;
    final String[] strings;

    private HistoryColumns(Builder b, Map<String, String> meta) {
        this.meta = meta;
        size = b.size;
        ids = b.ids;
        sessions = b.sessions;
        seqs = b.seqs;
        outcomes = b.outcomes;
        sql = b.sql;
        opStart = b.opStart;
        ops = b.ops;
        opBlocks = b.opBlocks;
        stmtBlocks = b.stmtBlocks;
        bigStmtOps = Arrays.copyOf(b.bigStmtOps, b.bigStmtCount);
        bigStmts = Arrays.copyOf(b.bigStmts, b.bigStmtCount);
        rows = b.rows;
        rowTable = b.rowTable;
        rowName = b.rowName;
        rowOrder = b.rowOrder;
        ownLists = b.ownLists.toArray(new long[0][]);
        strings = b.strings.toArray(new String[0]);
    }

    /** The columns of {@code h}: read from its file when it was, else made from its objects. */
    static HistoryColumns of(History h) {
        if (h.transactions() instanceof Transactions view) {
            return view.columns;
        }
        return fromObjects(h);
    }

    static int kind(int code) {
        return code & 3;
    }

    /** Operations per block (3 ints each: 384 KB, under the large-object size of a heap's 2 MB regions). */
    static final int OP_BLOCK_BITS = 15;
    private static final int OP_MASK = (1 << OP_BLOCK_BITS) - 1;
    /** Ints per operation in {@link #opBlocks}. */
    private static final int OP_INTS = 3;
    /** A statement byte that stands for one of {@link #bigStmtOps}' (statements are small: a transaction's index). */
    static final int STMT_ESCAPE = 255;
    /** Transactions an operation can name: its index shares an int with the code. */
    static final int MAX_TRANSACTIONS = (1 << 27) - 1;

    int code(int o) {
        return field(opBlocks, o, 0) & 15;
    }

    int txn(int o) {
        return field(opBlocks, o, 0) >>> 4;
    }

    /** Operation {@code o}'s first int: its transaction ({@code >>> 4}) and code ({@code & 15}). */
    int head(int o) {
        return field(opBlocks, o, 0);
    }

    int stmt(int o) {
        return stmtOf(stmtBlocks, bigStmtOps, bigStmts, bigStmtOps.length, o);
    }

    int row(int o) {
        return field(opBlocks, o, 1);
    }

    int len(int o) {
        return field(opBlocks, o, 2);
    }

    /** Int {@code k} of operation {@code o}'s three (transaction and code, row, length), for the columns and their builder. */
    private static int field(int[][] blocks, int o, int k) {
        return blocks[o >>> OP_BLOCK_BITS][(o & OP_MASK) * OP_INTS + k];
    }

    /** Operation {@code o}'s statement: its byte, or past the escape, its entry among the first {@code bigCount} big ones. */
    private static int stmtOf(byte[][] blocks, int[] bigOps, int[] bigStmts, int bigCount, int o) {
        int b = blocks[o >>> OP_BLOCK_BITS][o & OP_MASK] & 0xFF;
        return b != STMT_ESCAPE ? b : bigStmts[Arrays.binarySearch(bigOps, 0, bigCount, o)];
    }

    Outcome outcome(int txn) {
        return OUTCOMES[outcomes[txn]];
    }

    /** The entries of operation {@code o}'s wList: the first {@link #listLength} of this array. */
    long[] listArray(int o) {
        int len = len(o);
        return len >= 0 ? rowOrder[row(o)] : ownLists[-len - 1];
    }

    int listLength(int o) {
        return lengthOf(len(o));
    }

    /** The wList length an operation's length column {@code len} stands for. */
    int lengthOf(int len) {
        return len >= 0 ? len : ownLists[-len - 1].length;
    }

    String table(int row) {
        return strings[rowTable[row]];
    }

    String rowId(int row) {
        return strings[rowName[row]];
    }

    /** Operation {@code o} as an observation: {@link RowVersions}' flags (a predicate read's row carries its header's locking). */
    int flags(int o) {
        return flagsOf(code(o));
    }

    /** {@link #flags} of an operation's code. */
    static int flagsOf(int code) {
        return switch (kind(code)) {
            case READ -> RowVersions.READ | ((code & LOCKING) != 0 ? RowVersions.LOCKING : 0);
            case WRITE -> RowVersions.WRITE | (((code >>> WRITE_KIND_SHIFT) & 3) == WriteKind.DELETE.ordinal() ? RowVersions.DELETE : 0);
            case PRED_ROW -> RowVersions.READ | RowVersions.PRED | ((code & LOCKING) != 0 ? RowVersions.LOCKING : 0);
            default -> 0;
        };
    }

    /** The end of the predicate read whose header is {@code o}: the first operation after its rows. */
    int predEnd(int o) {
        int end = o + 1;
        int limit = opStart[txn(o) + 1];
        while (end < limit && kind(code(end)) == PRED_ROW) {
            end++;
        }
        return end;
    }

    WList wList(int o) {
        return WList.sharedPrefix(listArray(o), listLength(o));
    }

    /** A predicate read's predicate as text ({@code o} its header operation), or null when the history gave none. */
    String predicateText(int o) {
        return len(o) < 0 ? null : strings[len(o)];
    }

    /** The predicate read whose header is operation {@code o}, as an object. */
    PredicateRead predicateRead(int o) {
        int end = predEnd(o);
        List<RowVersion> rowsRead = new ArrayList<>(end - o - 1);
        for (int k = o + 1; k < end; k++) {
            rowsRead.add(new RowVersion(rowId(row(k)), wList(k)));
        }
        int code = code(o);
        return new PredicateRead(stmt(o), strings[row(o)], predicateText(o), (code & LOCKING) != 0, rowsRead);
    }

    /** Transaction {@code i} as an object (made anew on each call; the wLists are views of the rows' orders). */
    Transaction transaction(int i) {
        List<Op> list = new ArrayList<>(opStart[i + 1] - opStart[i]);
        for (int o = opStart[i]; o < opStart[i + 1]; o++) {
            int code = code(o);
            switch (kind(code)) {
                case READ -> list.add(new Read(stmt(o), table(row(o)), rowId(row(o)), wList(o), (code & LOCKING) != 0, (code & MATCHED) != 0));
                case WRITE -> list.add(new Write(stmt(o), table(row(o)), rowId(row(o)), WRITE_KINDS[(code >>> WRITE_KIND_SHIFT) & 3], wList(o)));
                case PRED -> {
                    list.add(predicateRead(o));
                    o = predEnd(o) - 1;
                }
                default -> throw new IllegalStateException("a predicate read's row outside a predicate read");
            }
        }
        return new Transaction(ids[i], sessions[i], seqs[i], outcome(i), sql == null ? List.of() : sql[i], list);
    }

    /** The transactions as a list that makes each one when it is asked for. */
    static final class Transactions extends AbstractList<Transaction> implements RandomAccess {
        final HistoryColumns columns;

        Transactions(HistoryColumns columns) {
            this.columns = columns;
        }

        @Override
        public Transaction get(int index) {
            return columns.transaction(java.util.Objects.checkIndex(index, columns.size));
        }

        @Override
        public int size() {
            return columns.size;
        }
    }

    /** The history these columns hold, its transactions made on demand. */
    History history() {
        return new History(meta, new Transactions(this));
    }

    /** The adapter for histories made of objects: the same columns the compact reader fills. */
    private static HistoryColumns fromObjects(History h) {
        Builder b = new Builder();
        Map<DependencyGraph.RowKey, Integer> rowNumbers = new HashMap<>();
        long[][] shared = new long[16][];
        int[] sharedLength = new int[16];
        for (Transaction t : h.transactions()) {
            b.transaction(t.id(), t.session(), t.seq(), t.outcome(), t.sql());
            boolean aborted = t.outcome() == Outcome.ABORTED;
            for (Op op : t.ops()) {
                int code;
                if (op instanceof PredicateRead p) {
                    b.op(PRED | (p.locking() ? LOCKING : 0), p.stmt(), b.string(p.table()), p.predicate() == null ? -1 : b.string(p.predicate()));
                    for (RowVersion rv : p.rows()) {
                        int row = rowNumbers.computeIfAbsent(new DependencyGraph.RowKey(p.table(), rv.row()), k -> b.row(k.table(), k.rowId()));
                        if (row >= shared.length) {
                            shared = Arrays.copyOf(shared, shared.length * 2);
                            sharedLength = Arrays.copyOf(sharedLength, shared.length);
                        }
                        b.op(PRED_ROW | (p.locking() ? LOCKING : 0), p.stmt(), row, b.list(row, shared, sharedLength, rv.wList(), aborted));
                    }
                    continue;
                }
                String table;
                String rowId;
                WList w;
                if (op instanceof Read r) {
                    code = READ | (r.locking() ? LOCKING : 0) | (r.matched() ? MATCHED : 0);
                    table = r.table();
                    rowId = r.row();
                    w = r.wList();
                } else {
                    Write wr = (Write) op;
                    code = WRITE | wr.kind().ordinal() << WRITE_KIND_SHIFT;
                    table = wr.table();
                    rowId = wr.row();
                    w = wr.wList();
                }
                int row = rowNumbers.computeIfAbsent(new DependencyGraph.RowKey(table, rowId), k -> b.row(k.table(), k.rowId()));
                if (row >= shared.length) {
                    shared = Arrays.copyOf(shared, shared.length * 2);
                    sharedLength = Arrays.copyOf(sharedLength, shared.length);
                }
                b.op(code, op.stmt(), row, b.list(row, shared, sharedLength, w, aborted));
            }
        }
        for (int r = 0; r < b.rows; r++) {
            b.rowOrder[r] = shared[r];
        }
        return b.build(h.meta());
    }

    /** Fills the columns one transaction and operation at a time. */
    static final class Builder {
        int size;
        long[] ids = new long[1024];
        int[] sessions = new int[1024];
        int[] seqs = new int[1024];
        byte[] outcomes = new byte[1024];
        /** Made at the first transaction with statements. */
        List<String>[] sql;
        int[] opStart = new int[1025];
        int ops;
        int[][] opBlocks = new int[16][];
        byte[][] stmtBlocks = new byte[16][];
        int[] bigStmtOps = new int[0];
        int[] bigStmts = new int[0];
        int bigStmtCount;
        int rows;
        int[] rowTable = new int[1024];
        int[] rowName = new int[1024];
        long[][] rowOrder = new long[1024][];
        final List<long[]> ownLists = new ArrayList<>();
        final List<String> strings = new ArrayList<>();
        /** Strings by value: a row is its table's and row id's numbers, so equal texts must get one number. */
        private final Map<String, Integer> stringNumbers = new HashMap<>();

        /** The number of {@code s}, given it if new. */
        int string(String s) {
            Integer k = stringNumbers.get(s);
            if (k != null) {
                return k;
            }
            strings.add(s);
            stringNumbers.put(s, strings.size() - 1);
            return strings.size() - 1;
        }

        /** A new row, numbered; its order is set by the reader when it is complete. */
        int row(String table, String rowId) {
            if (rows == rowTable.length) {
                int n = grow(rows);
                rowTable = Arrays.copyOf(rowTable, n);
                rowName = Arrays.copyOf(rowName, n);
                rowOrder = Arrays.copyOf(rowOrder, n);
            }
            rowTable[rows] = string(table);
            rowName[rows] = string(rowId);
            return rows++;
        }

        private static int grow(int n) {
            return n + Math.max(16, n >> 1);
        }

        void transaction(long id, int session, int seq, Outcome outcome, List<String> statements) {
            if (size == MAX_TRANSACTIONS) {
                throw new IllegalStateException("more than " + MAX_TRANSACTIONS + " transactions: txfuzz checks at most that many at once");
            }
            if (size == ids.length) {
                int n = grow(size);
                ids = Arrays.copyOf(ids, n);
                sessions = Arrays.copyOf(sessions, n);
                seqs = Arrays.copyOf(seqs, n);
                outcomes = Arrays.copyOf(outcomes, n);
                sql = sql == null ? null : Arrays.copyOf(sql, n);
                opStart = Arrays.copyOf(opStart, n + 1);
            }
            ids[size] = id;
            sessions[size] = session;
            seqs[size] = seq;
            outcomes[size] = (byte) outcome.ordinal();
            if (!statements.isEmpty()) {
                if (sql == null) {
                    @SuppressWarnings("unchecked")
                    List<String>[] made = new List[ids.length];
                    Arrays.fill(made, 0, size, List.of());
                    sql = made;
                }
                sql[size] = List.copyOf(statements);
            } else if (sql != null) {
                sql[size] = List.of();
            }
            opStart[size] = ops;
            size++;
            opStart[size] = ops;
        }

        /** An operation of the last transaction begun. */
        void op(int code, int stmt, int row, int len) {
            int b = ops >>> OP_BLOCK_BITS;
            int k = ops & OP_MASK;
            if (k == 0) {
                if (b == opBlocks.length) {
                    opBlocks = Arrays.copyOf(opBlocks, b * 2);
                    stmtBlocks = Arrays.copyOf(stmtBlocks, b * 2);
                }
                int capacity = b == 0 ? 64 : 1 << OP_BLOCK_BITS; // the first small: most histories are a test case's
                opBlocks[b] = new int[capacity * OP_INTS];
                stmtBlocks[b] = new byte[capacity];
            } else if (b == 0 && k == stmtBlocks[0].length) {
                int capacity = Math.min(1 << OP_BLOCK_BITS, k * 4);
                opBlocks[0] = Arrays.copyOf(opBlocks[0], capacity * OP_INTS);
                stmtBlocks[0] = Arrays.copyOf(stmtBlocks[0], capacity);
            }
            int[] block = opBlocks[b];
            int i = k * OP_INTS;
            block[i] = (size - 1) << 4 | code;
            block[i + 1] = row;
            block[i + 2] = len;
            if (stmt >= 0 && stmt < STMT_ESCAPE) {
                stmtBlocks[b][k] = (byte) stmt;
            } else {
                stmtBlocks[b][k] = (byte) STMT_ESCAPE;
                if (bigStmtCount == bigStmtOps.length) {
                    bigStmtOps = Arrays.copyOf(bigStmtOps, Math.max(8, bigStmtCount * 2));
                    bigStmts = Arrays.copyOf(bigStmts, bigStmtOps.length);
                }
                bigStmtOps[bigStmtCount] = ops;
                bigStmts[bigStmtCount++] = stmt;
            }
            ops++;
            opStart[size] = ops;
        }

        int code(int o) {
            return field(opBlocks, o, 0) & 15;
        }

        int stmt(int o) {
            return stmtOf(stmtBlocks, bigStmtOps, bigStmts, bigStmtCount, o);
        }

        int row(int o) {
            return field(opBlocks, o, 1);
        }

        int len(int o) {
            return field(opBlocks, o, 2);
        }

        /** A list that is not a prefix of its row's order: its length column is {@code -(k + 1)} for the k-th such list. */
        int ownList(long[] entries) {
            ownLists.add(entries);
            return -ownLists.size();
        }

        /**
         * The length column of {@code w} on {@code row}: a prefix of the row's committed versions so far, or their next
         * versions (a transaction that did not abort extends them), else a list of its own.
         */
        int list(int row, long[][] shared, int[] sharedLength, WList w, boolean aborted) {
            long[] a = w.raw();
            int n = w.size();
            long[] s = shared[row];
            int sl = sharedLength[row];
            int m = Math.min(n, sl);
            boolean agrees = s != null && Arrays.equals(a, 0, m, s, 0, m);
            if (agrees && n <= sl) {
                return n;
            }
            if ((agrees || s == null) && !aborted) {
                if (s == null || n > s.length) {
                    s = s == null ? new long[Math.max(4, n)] : Arrays.copyOf(s, Math.max(n, s.length * 2));
                    shared[row] = s;
                }
                System.arraycopy(a, sl, s, sl, n - sl);
                sharedLength[row] = n;
                return n;
            }
            return ownList(Arrays.copyOf(a, n));
        }

        HistoryColumns build(Map<String, String> meta) {
            for (int r = 0; r < rows; r++) {
                if (rowOrder[r] == null) {
                    rowOrder[r] = new long[0];
                }
            }
            // the growth's slack off (the operations' blocks have none to speak of)
            if (size < ids.length) {
                ids = Arrays.copyOf(ids, size);
                sessions = Arrays.copyOf(sessions, size);
                seqs = Arrays.copyOf(seqs, size);
                outcomes = Arrays.copyOf(outcomes, size);
                sql = sql == null ? null : Arrays.copyOf(sql, size);
                opStart = Arrays.copyOf(opStart, size + 1);
            }
            return new HistoryColumns(this, meta);
        }
    }
}
