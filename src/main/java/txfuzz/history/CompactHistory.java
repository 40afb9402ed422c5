package txfuzz.history;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The compact history format (docs/history-format.md, "The compact form"): the same transactions as the
 * JSON lines, in a binary stream that costs a few bytes per operation. Its first line is the text
 * {@value #MAGIC_LINE_TEXT}, by which {@link HistoryFiles} tells it from JSON lines. What makes it small
 * is the wList: every observed wList of a row is sent as its length and only the entries the reader has
 * not seen for that row yet (delta-coded ids), since each observation normally extends or repeats a
 * prefix of the row's order; a list that contradicts the row's order is sent in full after the common
 * prefix, so any history, however inconsistent, round-trips exactly.
 */
public final class CompactHistory {
    static final String MAGIC_LINE_TEXT = "txfuzz-history-compact 1";
    static final byte[] MAGIC = (MAGIC_LINE_TEXT + "\n").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MAGIC_PREFIX = "txfuzz-history-compact ".getBytes(StandardCharsets.US_ASCII);
    private static final int TAG_END = 0, TAG_TXN = 1;
    private static final int OP_READ = 0, OP_WRITE = 1, OP_PRED = 2;
    private static final int LOCKING = 4, MATCHED = 8, HAS_PREDICATE = 8;
    /** Longer than any name or statement txfuzz records: a length beyond it means the bytes are not what they claim. */
    private static final int MAX_STRING = 1 << 26;
    /** A row's order before its first list, and the reader's shared versions of it: one array, so they agree from the start. */
    private static final long[] EMPTY_ORDER = new long[0];

    private CompactHistory() {
    }

    /** Whether {@code head} (a file's first bytes) starts like a compact history of any version. */
    static boolean startsLikeCompact(byte[] head, int n) {
        return n >= MAGIC_PREFIX.length && Arrays.equals(head, 0, MAGIC_PREFIX.length, MAGIC_PREFIX, 0, MAGIC_PREFIX.length);
    }

    public static void write(History h, Path file) throws IOException {
        try (Writer w = new Writer(file, h.meta())) {
            for (Transaction t : h.transactions()) {
                w.write(t);
            }
        }
    }

    /**
     * Per row, the order sent so far (the longest wList that extended it); both sides keep the same one,
     * which is what lets an observation be sent as a length and its new entries only.
     */
    private static final class RowOrder {
        long[] ids;
        int length;
        /** The reader's own: the row's number among the columns' rows, -1 before its first operation. */
        int row = -1;
        /** Whether the row's id is the empty text (set by the decoding thread when reading on two: see {@link Reader#checkRow}). */
        boolean emptyRowText;
        /**
         * The reader's own: the row's versions as committed transactions saw them, which its lists are lengths on
         * (entries are only appended past the longest one's end), kept by the row's {@code owner}: itself, unless the
         * file named the same row with a second string of the same text. The format's order follows any longest list,
         * an aborted writer's too: sharing that one gave every committed list after an aborted write its own copy. Here,
         * beside the format's order, rather than in arrays by row: the read waits on memory, a cache miss per row look-up.
         */
        RowOrder owner;
        long[] shared;
        int sharedLength;
        /**
         * How many leading entries {@code agreedIds} (the format's order) and {@code agreedShared} (the reader's shared
         * versions of the row) are known to share: an aborted write leaves the format's order on the aborted list for
         * good, and comparing the two arrays again on every later operation of the row was 7% of the read. Both arrays
         * only grow past their valid entries.
         */
        long[] agreedIds;
        long[] agreedShared;
        int agreed;
    }

    /** Rows by (table, row) string numbers: both are numbered by the string table, so no per-op hashing of text. */
    private static final class RowOrders {
        private RowOrder[][] byTable = new RowOrder[8][];

        /** The row's order if it has one yet, else null; never grows anything (for {@link Reader#touchRows}). */
        RowOrder known(int table, int row) {
            if (table >= byTable.length) {
                return null;
            }
            RowOrder[] rows = byTable[table];
            return rows == null || row >= rows.length ? null : rows[row];
        }

        RowOrder of(int table, int row) {
            if (table >= byTable.length) {
                byTable = Arrays.copyOf(byTable, Math.max(table + 1, byTable.length * 2));
            }
            RowOrder[] rows = byTable[table];
            if (rows == null || row >= rows.length) {
                rows = rows == null ? new RowOrder[Math.max(64, row + 1)] : Arrays.copyOf(rows, Math.max(row + 1, rows.length * 2));
                byTable[table] = rows;
            }
            RowOrder o = rows[row];
            if (o == null) {
                o = new RowOrder();
                o.ids = EMPTY_ORDER;
                rows[row] = o;
            }
            return o;
        }
    }

    /** Writes transactions as they come (a run's or a generator's), never holding the history. */
    public static final class Writer implements Closeable {
        private final OutputStream out;
        private final byte[] buf = new byte[1 << 16];
        private int pos;
        private final Map<String, Integer> strings = new HashMap<>();
        private final RowOrders orders = new RowOrders();
        private long count;

        public Writer(Path file, Map<String, String> meta) throws IOException {
            out = Files.newOutputStream(file);
            bytes(MAGIC);
            varint(meta.size());
            for (Map.Entry<String, String> e : meta.entrySet()) {
                raw(e.getKey());
                raw(e.getValue());
            }
        }

        public void write(Transaction t) throws IOException {
            byte1(TAG_TXN);
            varlong(t.id());
            varint(t.session());
            varint(t.seq());
            byte1(t.outcome().ordinal());
            varint(t.sql().size());
            for (String s : t.sql()) {
                raw(s);
            }
            varint(t.ops().size());
            for (Op op : t.ops()) {
                if (op instanceof Read r) {
                    byte1(OP_READ | (r.locking() ? LOCKING : 0) | (r.matched() ? MATCHED : 0));
                    varint(r.stmt());
                    int table = ref(r.table());
                    wList(table, ref(r.row()), r.wList());
                } else if (op instanceof Write w) {
                    byte1(OP_WRITE | w.kind().ordinal() << 2);
                    varint(w.stmt());
                    int table = ref(w.table());
                    wList(table, ref(w.row()), w.wList());
                } else {
                    PredicateRead p = (PredicateRead) op;
                    byte1(OP_PRED | (p.locking() ? LOCKING : 0) | (p.predicate() != null ? HAS_PREDICATE : 0));
                    varint(p.stmt());
                    int table = ref(p.table());
                    if (p.predicate() != null) {
                        ref(p.predicate());
                    }
                    varint(p.rows().size());
                    for (RowVersion rv : p.rows()) {
                        wList(table, ref(rv.row()), rv.wList());
                    }
                }
            }
            count++;
        }

        /** The list as its length, how many entries are new to the row's order, and those entries as deltas. */
        private void wList(int table, int row, WList w) throws IOException {
            RowOrder o = orders.of(table, row);
            long[] a = w.raw();
            int n = w.size();
            int limit = Math.min(n, o.length);
            int common = 0;
            if (a == o.ids) {
                common = limit;
            } else {
                while (common < limit && a[common] == o.ids[common]) {
                    common++;
                }
            }
            varint(n);
            varint(n - common);
            long prev = common == 0 ? 0 : a[common - 1];
            for (int i = common; i < n; i++) {
                varlong(zigzag(a[i] - prev));
                prev = a[i];
            }
            if (common == o.length && n > o.length) {
                o.ids = a; // a WList's array never changes: the row's order is now this list
                o.length = n;
            }
        }

        /** A string by number: 0 and the text the first time, its number + 1 after. */
        private int ref(String s) throws IOException {
            Integer k = strings.get(s);
            if (k != null) {
                varint(k + 1);
                return k;
            }
            int id = strings.size();
            strings.put(s, id);
            varint(0);
            raw(s);
            return id;
        }

        private void raw(String s) throws IOException {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            varint(b.length);
            bytes(b);
        }

        private static long zigzag(long v) {
            return (v << 1) ^ (v >> 63);
        }

        private void varint(int v) throws IOException {
            varlong(v & 0xffffffffL);
        }

        private void varlong(long v) throws IOException {
            if (pos + 10 > buf.length) {
                flush();
            }
            while ((v & ~0x7fL) != 0) {
                buf[pos++] = (byte) ((v & 0x7f) | 0x80);
                v >>>= 7;
            }
            buf[pos++] = (byte) v;
        }

        private void byte1(int b) throws IOException {
            if (pos == buf.length) {
                flush();
            }
            buf[pos++] = (byte) b;
        }

        private void bytes(byte[] b) throws IOException {
            if (pos + b.length > buf.length) {
                flush();
            }
            if (b.length > buf.length) {
                out.write(b);
                return;
            }
            System.arraycopy(b, 0, buf, pos, b.length);
            pos += b.length;
        }

        private void flush() throws IOException {
            out.write(buf, 0, pos);
            pos = 0;
        }

        /** The end record (the count of transactions), so that a reader can tell a whole file from a cut one. */
        @Override
        public void close() throws IOException {
            try {
                byte1(TAG_END);
                varlong(count);
                flush();
            } finally {
                out.close();
            }
        }
    }

    /** Reads a compact history; any defect is a {@link HistoryFormatException} naming the file and where. */
    public static History read(Path file) throws HistoryFormatException {
        return read(file, onTwoThreads(file));
    }

    /**
     * The files txfuzz writes take about ten bytes an operation (12 at 20,000 stale transactions, 10 at a million): a file
     * is read on two threads when it holds about as many operations as the checker splits its passes at.
     */
    private static final long BYTES_PER_OP = 10;

    private static boolean onTwoThreads(Path file) {
        long twoThreadOps = DependencyGraph.Limits.DEFAULT.twoThreadOps();
        try {
            return twoThreadOps != Long.MAX_VALUE && Files.size(file) / BYTES_PER_OP > twoThreadOps;
        } catch (IOException e) {
            return false; // the read names what is wrong with the file
        }
    }

    /**
     * Reads on one thread, or on two: one decoding the bytes (numbers, strings and every check that needs no row's state)
     * into a stream of values, the other reading those values exactly as it reads the bytes on one thread, into the same
     * columns (see {@link Feed}). The same history, or the same error, either way.
     */
    static History read(Path file, boolean twoThreads) throws HistoryFormatException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            if (!twoThreads) {
                return new Reader(in, file.toString(), null).read();
            }
            Feed feed = new Feed();
            Reader decoder = new Reader(in, file.toString(), null);
            Reader reader = new Reader(null, file.toString(), feed);
            History[] read = new History[1];
            Exception[] failed = new Exception[1];
            TwoThreads.run(true, () -> {
                try {
                    read[0] = reader.read();
                } catch (IOException | HistoryFormatException e) {
                    failed[0] = e;
                } finally {
                    feed.close(); // the decoder stops at its next chunk if this side stopped first
                }
            }, () -> decoder.decodeInto(feed));
            if (failed[0] instanceof HistoryFormatException e) {
                throw e;
            }
            if (failed[0] instanceof IOException e) {
                throw e;
            }
            return read[0];
        } catch (NoSuchFileException e) {
            throw new HistoryFormatException(file + ": no such file", e);
        } catch (IOException e) {
            throw new HistoryFormatException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /**
     * Reads straight into {@link HistoryColumns}: no {@code Transaction}, {@code Op} or {@code WList} per operation
     * (fourteen million objects at a million transactions, all live, were most of the read: the collector copying
     * them), rows numbered by the format's string table, and a wList as a length on its row's committed order.
     */
    private static final class Reader {
        private final InputStream in;
        private final String source;
        private final byte[] buf = new byte[1 << 16];
        private int pos;
        private int end;
        private long consumed;
        /** The format's strings, and each one's number among the columns' (equal texts share one). */
        private final List<String> strings = new ArrayList<>();
        private int[] canonical = new int[64];
        /** Whether string k is empty, for {@link #checkRow}. */
        private boolean[] emptyText = new boolean[64];
        private final RowOrders orders = new RowOrders();
        private final HistoryColumns.Builder columns = new HistoryColumns.Builder();
        /** The columns' rows by (table, row id) string numbers, and each one's owner of its shared versions. */
        private final Map<Long, Integer> rowNumbers = new HashMap<>();
        private final List<RowOrder> owners = new ArrayList<>();
        private long txnNo;
        /** The transaction being read aborted: its lists do not extend a row's shared versions. */
        private boolean aborted;
        private long[] fresh = new long[64];

        /** Where values come from when another thread decodes the bytes ({@link Feed}); null when reading them here. */
        private final Feed feed;
        /** The chunk of values being read, its values, the next one's place and how many there are. */
        private Chunk chunk;
        private long[] values;
        private int at;
        private int valueCount;
        /** The chunk's next object (string or row), and how far {@link #touchRowsAhead} has looked. */
        private int objectAt;
        private int touchedTo;

        Reader(InputStream in, String source, Feed feed) {
            this.in = in;
            this.source = source;
            this.feed = feed;
        }

        History read() throws IOException, HistoryFormatException {
            try {
                if (feed == null) {
                    header(); // else the decoder checks it
                }
                Map<String, String> meta = new LinkedHashMap<>();
                int metaCount = count("meta entries");
                for (int i = 0; i < metaCount; i++) {
                    meta.put(raw(), raw());
                }
                while (true) {
                    int tag = byte1();
                    if (tag == TAG_END) {
                        long n = varlong();
                        if (n != txnNo) {
                            throw corrupt("the end record counts " + n + " transactions, the file holds " + txnNo);
                        }
                        if (byte1OrEof() >= 0) {
                            throw corrupt("bytes after the end record");
                        }
                        break;
                    }
                    if (tag != TAG_TXN) {
                        throw corrupt("a record of unknown kind " + tag);
                    }
                    txnNo++;
                    transaction();
                }
                for (int r = 0; r < columns.rows; r++) {
                    RowOrder o = owners.get(r);
                    // a row's array grows by doubling; its lists are lengths on it, so the slack can go
                    columns.rowOrder[r] = o.shared.length > o.sharedLength ? Arrays.copyOf(o.shared, o.sharedLength) : o.shared;
                }
                try {
                    return columns.build(meta).history();
                } catch (IllegalArgumentException e) {
                    throw new HistoryFormatException(source + ": " + e.getMessage(), e);
                }
            } catch (EOFException e) {
                throw new HistoryFormatException(source + ": the file is cut short after " + txnNo + " transactions (no end record):"
                        + " it was not closed by its writer, or was truncated", e);
            }
        }

        private void header() throws IOException, HistoryFormatException {
            byte[] line = new byte[MAGIC.length];
            for (int i = 0; i < line.length; i++) {
                line[i] = (byte) byte1();
            }
            if (!Arrays.equals(line, MAGIC)) {
                String text = new String(line, StandardCharsets.US_ASCII);
                int nl = text.indexOf('\n');
                throw new HistoryFormatException(source + ": not a compact history of version 1: it begins \""
                        + (nl >= 0 ? text.substring(0, nl) : text).replaceAll("[^\\x20-\\x7e]", "?") + "\" (this txfuzz reads \""
                        + MAGIC_LINE_TEXT + "\")", null);
            }
        }

        private void transaction() throws IOException, HistoryFormatException {
            long id = varlong();
            int session = count("session");
            int seq = count("seq");
            int outcome = byte1();
            if (outcome >= Outcome.values().length) {
                throw corrupt("transaction " + txnNo + " (T" + id + ") has outcome code " + outcome);
            }
            aborted = outcome == Outcome.ABORTED.ordinal();
            int sqlCount = count("statements");
            List<String> sql = new ArrayList<>(Math.min(sqlCount, 64));
            for (int i = 0; i < sqlCount; i++) {
                sql.add(raw());
            }
            int opCount = count("operations");
            if (columns.size == HistoryColumns.MAX_TRANSACTIONS) {
                throw new HistoryFormatException(source + ": more than " + HistoryColumns.MAX_TRANSACTIONS
                        + " transactions, more than txfuzz checks at once", null);
            }
            columns.transaction(id, session, seq, Outcome.values()[outcome], sql);
            touchRows(opCount);
            int first = columns.ops;
            try {
                for (int i = 0; i < opCount; i++) {
                    op();
                }
                validate(id, sql.size(), first);
            } catch (IllegalArgumentException e) {
                throw new HistoryFormatException(source + ": transaction " + txnNo + " (T" + id + "): " + e.getMessage(), e);
            }
        }

        /** Sum of what {@link #touchRows} loaded, so that the loads are not dropped as unused. */
        private long touched;

        /**
         * Loads the rows' state of the transaction's next operations before they are read, scanning ahead in the buffer: the read
         * waits on memory, a cache miss or two per operation on its row's state, one after another; a short loop of independent
         * loads keeps them in flight together. Only a look: it stops at anything unusual (a new string, the buffer's end) and
         * what is read afterwards decides everything, checks included.
         */
        private void touchRows(int opCount) {
            if (feed != null) {
                touchRowsAhead();
                return;
            }
            byte[] b = buf;
            int p = pos;
            long sum = 0;
            for (int i = 0; i < opCount; i++) {
                if (end - p < 40) {
                    break;
                }
                int code = b[p++] & 0xff;
                p = skipVarint(b, p); // statement
                long table = scanVarint(b, p);
                p = scanPos;
                if (table == 0 || table > strings.size()) {
                    break; // a new string (its bytes follow), or a defect the read proper will name
                }
                int rowsHere = 1;
                if ((code & 3) == OP_PRED) {
                    if ((code & HAS_PREDICATE) != 0) {
                        if (scanVarint(b, p) == 0) {
                            break;
                        }
                        p = scanPos;
                    }
                    rowsHere = (int) scanVarint(b, p);
                    p = scanPos;
                    i = opCount; // the predicate read's rows are the last looked at
                }
                for (int r = 0; r < rowsHere; r++) {
                    if (end - p < 40) {
                        touched += sum;
                        return;
                    }
                    long row = scanVarint(b, p);
                    p = scanPos;
                    long n = scanVarint(b, p);
                    p = scanPos;
                    long freshCount = scanVarint(b, p);
                    p = scanPos;
                    if (row == 0 || row > strings.size() || freshCount > 16) {
                        touched += sum;
                        return;
                    }
                    RowOrder o = orders.known((int) table - 1, (int) row - 1);
                    if (o != null) {
                        long[] ids = o.ids;
                        long common = n - freshCount;
                        sum += freshCount > 0 && common > 0 && common <= ids.length ? ids[(int) common - 1] : o.length;
                    }
                    for (long f = 0; f < freshCount; f++) {
                        p = skipVarint(b, p);
                    }
                }
            }
            touched += sum;
        }

        /** Where {@link #scanVarint} stopped. */
        private int scanPos;

        /** A number at {@code p} of the buffer (a look ahead: past the buffer's valid bytes it reads old ones, never past its end). */
        private long scanVarint(byte[] b, int p) {
            long v = 0;
            for (int shift = 0; shift < 64 && p < b.length; shift += 7) {
                int x = b[p++];
                v |= (long) (x & 0x7f) << shift;
                if (x >= 0) {
                    break;
                }
            }
            scanPos = p;
            return v;
        }

        private static int skipVarint(byte[] b, int p) {
            int limit = Math.min(b.length, p + 10);
            while (p < limit && b[p++] < 0) {
                // continuation bytes
            }
            return p;
        }

        /** What {@link Transaction}'s constructor refuses, in its order and words, on the columns just read. */
        private void validate(long id, int statements, int first) {
            Transaction.checkId(id);
            for (int o = first; o < columns.ops; o++) {
                int kind = HistoryColumns.kind(columns.code(o));
                if (kind == HistoryColumns.PRED_ROW) {
                    continue;
                }
                Transaction.checkStatement(id, columns.stmt(o), statements);
                if (kind == HistoryColumns.WRITE) {
                    long[] a = listArray(o);
                    int n = listLength(o);
                    if (a[n - 1] != id) {
                        throw Transaction.notItsWriter(id, WList.text(a, n), strings(columns.rowName[columns.row(o)]));
                    }
                }
            }
        }

        private String strings(int canonicalNumber) {
            return columns.strings.get(canonicalNumber);
        }

        private long[] listArray(int o) {
            int len = columns.len(o);
            return len >= 0 ? owners.get(columns.row(o)).shared : columns.ownLists.get(-len - 1);
        }

        private int listLength(int o) {
            int len = columns.len(o);
            return len >= 0 ? len : columns.ownLists.get(-len - 1).length;
        }

        private void op() throws IOException, HistoryFormatException {
            int code = byte1();
            int kind = code & 3;
            int stmt = count("stmt");
            int table = ref();
            switch (kind) {
                case OP_READ -> {
                    if ((code & ~(3 | LOCKING | MATCHED)) != 0) {
                        throw corrupt("a read with flags " + code);
                    }
                    int row = ref();
                    RowOrder o = rowOrder(table, row);
                    int len = wList(o, owner(o, table, row));
                    Op.checkCommon(stmt, strings.get(table));
                    checkRow(o, row);
                    columns.op(HistoryColumns.READ | (code & LOCKING) | (code & MATCHED), stmt, o.row, len);
                }
                case OP_WRITE -> {
                    int wk = code >>> 2;
                    if (wk >= WriteKind.values().length) {
                        throw corrupt("a write of kind code " + wk);
                    }
                    int row = ref();
                    RowOrder o = rowOrder(table, row);
                    int len = wList(o, owner(o, table, row));
                    Op.checkCommon(stmt, strings.get(table));
                    checkRow(o, row);
                    columns.op(HistoryColumns.WRITE | wk << HistoryColumns.WRITE_KIND_SHIFT, stmt, o.row, len);
                    int n = listLength(columns.ops - 1);
                    if (wk == WriteKind.INSERT.ordinal() && n != 1) {
                        throw new IllegalArgumentException("an insert creates a row with a one-entry wlist, not "
                                + WList.text(listArray(columns.ops - 1), n));
                    }
                }
                case OP_PRED -> {
                    if ((code & ~(3 | LOCKING | HAS_PREDICATE)) != 0) {
                        throw corrupt("a predicate read with flags " + code);
                    }
                    int predicate = -1;
                    if ((code & HAS_PREDICATE) != 0) {
                        int reference = ref(); // before indexing: a new string may grow the array
                        predicate = canonical[reference];
                    }
                    int n = count("rows of a predicate read");
                    columns.op(HistoryColumns.PRED | (code & LOCKING), stmt, canonical[table], predicate);
                    for (int i = 0; i < n; i++) {
                        int row = ref();
                        RowOrder o = rowOrder(table, row);
                        int len = wList(o, owner(o, table, row));
                        checkRow(o, row);
                        columns.op(HistoryColumns.PRED_ROW | (code & LOCKING), stmt, o.row, len);
                    }
                    Op.checkCommon(stmt, strings.get(table));
                }
                default -> throw corrupt("an operation of unknown kind " + kind);
            }
        }

        /**
         * {@link Op#checkRow} of string {@code k}, which only refuses an empty row id: its text is looked at only then, since
         * loading every operation's row id text (a million distinct ones and more) was a cache miss or two each.
         */
        private void checkRow(RowOrder o, int k) {
            if (feed != null ? o.emptyRowText : emptyText[k]) { // on two threads, in the row's state, loaded already
                Op.checkRow(strings.get(k));
            }
        }

        /** The row's format order: on two threads the decoder looked it up (a cache miss or two fewer here). */
        private RowOrder rowOrder(int table, int row) throws IOException, HistoryFormatException {
            if (feed == null) {
                return orders.of(table, row);
            }
            int slot = (int) next();
            objectAt = slot + 1;
            return (RowOrder) chunk.objects[slot];
        }

        /** The owner of the row's shared versions, the row numbered on its first operation (by the texts: equal ones are one row). */
        private RowOrder owner(RowOrder o, int table, int row) {
            if (o.owner == null) {
                long key = (long) canonical[table] << 32 | canonical[row];
                Integer known = rowNumbers.get(key);
                if (known == null) {
                    known = columns.row(strings.get(table), strings.get(row));
                    rowNumbers.put(key, known);
                    owners.add(o);
                    o.shared = EMPTY_ORDER;
                }
                o.row = known;
                o.owner = owners.get(known);
            }
            return o.owner;
        }

        /** Reads a wList of the row; returns its length column (see {@link HistoryColumns}). */
        private int wList(RowOrder o, RowOrder owner) throws IOException, HistoryFormatException {
            int n = count("wList length");
            int freshCount = count("new wList entries");
            long offset = feed != null ? next() : consumed + pos; // the decoder sends where the list's header ended
            int common = n - freshCount;
            if (n == 0 || freshCount > n || common > o.length) {
                throw corrupt(offset, "a wList of " + n + " entries with " + freshCount + " new ones, on a row of " + o.length + " known");
            }
            if (n > fresh.length) {
                fresh = Arrays.copyOf(fresh, Math.max(n, fresh.length * 2));
            }
            if (freshCount > 0) {
                // the list is the format's order up to `common`, then the new entries (kept at their own positions)
                long prev = common == 0 ? 0 : o.ids[common - 1];
                for (int i = common; i < n; i++) {
                    prev += unzigzag(varlong());
                    fresh[i] = prev;
                }
            }
            int len = view(o, owner, common, n);
            if (common == o.length && n > o.length) {
                // the format's order: the first n entries of the list's array never change
                long[] ids = len >= 0 ? owner.shared : columns.ownLists.get(-len - 1);
                if (o.ids != ids) {
                    o.ids = ids; // stored only when it changes: each store into an old object costs the collector (see RowVersions#observe)
                }
                o.length = n;
            }
            return len;
        }

        /** The list as a length on the row's shared versions when it agrees with them, else a list of its own. */
        private int view(RowOrder o, RowOrder owner, int common, int n) {
            long[] s = owner.shared;
            int sl = owner.sharedLength;
            int m = Math.min(n, sl);
            int head = Math.min(common, m);
            // a list with no new entries inside the shared versions (most are reads) is decided without touching the array: its
            // header alone, for the bounds check of an empty comparison, was a cache miss per operation
            boolean agrees = agreeOn(o, s, sl, head) && (head >= m || Arrays.equals(fresh, head, m, s, head, m));
            if (agrees && n <= sl) {
                return n;
            }
            if (agrees && !aborted) {
                if (n > s.length) {
                    s = Arrays.copyOf(s, Math.max(4, Math.max(n, s.length * 2))); // lists are lengths: only the last array is kept
                    owner.shared = s;
                }
                if (sl < common) {
                    System.arraycopy(o.ids, sl, s, sl, common - sl);
                }
                System.arraycopy(fresh, Math.max(sl, common), s, Math.max(sl, common), n - Math.max(sl, common));
                owner.sharedLength = n;
                return n;
            }
            long[] own = Arrays.copyOf(o.ids, n);
            System.arraycopy(fresh, common, own, common, n - common);
            return columns.ownList(own);
        }

        /** Whether the format's order and the row's shared versions agree on their first {@code head} entries (at most both lengths). */
        private static boolean agreeOn(RowOrder o, long[] s, int sl, int head) {
            if (o.ids == s) {
                return true;
            }
            if (o.agreedIds != o.ids || o.agreedShared != s) {
                o.agreedIds = o.ids;
                o.agreedShared = s;
                o.agreed = 0;
            }
            if (head > o.agreed) {
                int limit = Math.min(o.length, sl);
                int k = Arrays.mismatch(o.ids, o.agreed, limit, s, o.agreed, limit);
                o.agreed = k < 0 ? limit : o.agreed + k;
            }
            return head <= o.agreed;
        }

        private int ref() throws IOException, HistoryFormatException {
            int k = count("string reference");
            if (k == 0) {
                String text = raw();
                strings.add(text);
                int at = strings.size() - 1;
                if (at == canonical.length) {
                    canonical = Arrays.copyOf(canonical, at * 2);
                    emptyText = Arrays.copyOf(emptyText, at * 2);
                }
                canonical[at] = columns.string(text);
                emptyText[at] = text.isEmpty();
                return at;
            }
            if (k > strings.size()) {
                throw corrupt("a reference to string " + k + " of " + strings.size());
            }
            return k - 1;
        }

        private String raw() throws IOException, HistoryFormatException {
            if (feed != null) {
                int slot = (int) next();
                objectAt = slot + 1;
                return (String) chunk.objects[slot];
            }
            int n = count("string length");
            if (n > MAX_STRING) {
                throw corrupt("a string of " + n + " bytes");
            }
            byte[] b = new byte[n];
            for (int i = 0; i < n; i++) {
                b[i] = (byte) byte1();
            }
            return new String(b, StandardCharsets.UTF_8);
        }

        private static long unzigzag(long v) {
            return (v >>> 1) ^ -(v & 1);
        }

        /** A non-negative int (a count, an index, a session ...). */
        private int count(String what) throws IOException, HistoryFormatException {
            long v = varlong();
            if (v < 0 || v > Integer.MAX_VALUE) {
                throw corrupt(what + " " + Long.toUnsignedString(v) + " is out of range");
            }
            return (int) v;
        }

        private long varlong() throws IOException, HistoryFormatException {
            if (feed != null) {
                return next();
            }
            if (end - pos >= 10) {
                // the buffer holds any number: decode without a refill check per byte
                byte[] b = buf;
                int p = pos;
                long v = 0;
                for (int shift = 0; shift < 64; shift += 7) {
                    int x = b[p++];
                    v |= (long) (x & 0x7f) << shift;
                    if (x >= 0) {
                        pos = p;
                        return v;
                    }
                }
                pos = p;
                throw corrupt("a number longer than 64 bits");
            }
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int b = byte1();
                v |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return v;
                }
            }
            throw corrupt("a number longer than 64 bits");
        }

        private int byte1() throws IOException {
            int b = byte1OrEof();
            if (b < 0) {
                throw new EOFException();
            }
            return b;
        }

        private int byte1OrEof() throws IOException {
            if (feed != null) {
                try {
                    return (int) next();
                } catch (HistoryFormatException e) {
                    throw new IllegalStateException("the compact reader's decoder is out of step", e); // it checks no byte it reads alone
                }
            }
            if (pos == end) {
                consumed += end;
                end = in.read(buf, 0, buf.length);
                pos = 0;
                if (end <= 0) {
                    end = 0;
                    return -1;
                }
            }
            return buf[pos++] & 0xff;
        }

        private HistoryFormatException corrupt(String what) {
            if (feed != null) {
                return decoderError(); // the decoder made the same check on the same values, and stopped there
            }
            return corrupt(consumed + pos, what);
        }

        private HistoryFormatException corrupt(long offset, String what) {
            return new HistoryFormatException(source + ": corrupt at byte " + offset + ", in transaction " + txnNo + ": " + what, null);
        }

        // ---- reading the decoder's values (this side, when a feed is given)

        private long next() throws IOException, HistoryFormatException {
            if (at == valueCount) {
                nextChunk();
            }
            return values[at++];
        }

        /** Moves to the next chunk with values; at the decoder's end, throws what stopped it there. */
        private void nextChunk() throws IOException, HistoryFormatException {
            while (at == valueCount) {
                if (chunk != null && chunk.last) {
                    Throwable e = chunk.failure;
                    if (e instanceof IOException io) {
                        throw io;
                    }
                    if (e instanceof HistoryFormatException h) {
                        throw h;
                    }
                    if (e instanceof RuntimeException r) {
                        throw r;
                    }
                    if (e instanceof Error r) {
                        throw r;
                    }
                    throw new IllegalStateException(e == null ? "the compact reader read past the decoder's end" : "the decoder failed", e);
                }
                if (chunk != null) {
                    feed.recycle(chunk);
                }
                chunk = feed.take();
                values = chunk.values;
                valueCount = chunk.count;
                at = 0;
                objectAt = 0;
                touchedTo = 0;
            }
        }

        /** The decoder's error where this side stands: a check of the bytes alone failed there on both sides. */
        private HistoryFormatException decoderError() {
            try {
                nextChunk(); // throws the decoder's error if this side stands at it
            } catch (HistoryFormatException e) {
                return e;
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException("the compact reader's decoder is out of step", e);
            }
            throw new IllegalStateException("the compact reader's decoder is out of step: no error where this side found one");
        }

        /** How many rows ahead of the one being read {@link #touchRowsAhead} loads. */
        private static final int ROWS_AHEAD = 32;

        /**
         * {@link #touchRows} on two threads: the decoder sent the rows themselves, so the look ahead loads the state of the
         * chunk's next rows, each once, however many transactions they span.
         */
        private void touchRowsAhead() {
            Object[] objects = chunk.objects;
            int to = Math.min(chunk.objectCount, objectAt + ROWS_AHEAD);
            long sum = 0;
            for (int k = Math.max(objectAt, touchedTo); k < to; k++) {
                if (objects[k] instanceof RowOrder o) {
                    long[] ids = o.ids;
                    int n = o.length;
                    sum += n > 0 && n <= ids.length ? ids[n - 1] : n;
                }
            }
            touchedTo = Math.max(touchedTo, to);
            touched += sum;
        }

        // ---- decoding the bytes into values (the other side, when reading on two threads)

        private Feed sink;
        private Chunk out;
        private long[] outValues;
        private int outCount;
        /** How many strings the file has defined so far (this side keeps no texts but those it sends). */
        private int stringCount;

        /**
         * Decodes the whole file into {@code feed}: the values {@link #read} would take from the bytes, in its order, each
         * checked as it checks them when it needs no row's state; at the first defect, the error in place of the rest.
         */
        void decodeInto(Feed feed) {
            sink = feed;
            out = feed.fresh();
            outValues = out.values;
            Throwable failed = null;
            try {
                header();
                int metaCount = count("meta entries");
                put(metaCount);
                for (int i = 0; i < 2 * metaCount; i++) {
                    putString(raw());
                }
                while (true) {
                    int tag = byte1();
                    put(tag);
                    if (tag == TAG_END) {
                        long n = varlong();
                        if (n != txnNo) {
                            throw corrupt("the end record counts " + n + " transactions, the file holds " + txnNo);
                        }
                        put(n);
                        int after = byte1OrEof();
                        put(after);
                        if (after >= 0) {
                            throw corrupt("bytes after the end record");
                        }
                        break;
                    }
                    if (tag != TAG_TXN) {
                        throw corrupt("a record of unknown kind " + tag);
                    }
                    txnNo++;
                    decodeTransaction();
                }
            } catch (Feed.Closed e) {
                return; // the reading side stopped: nobody takes the rest
            } catch (Throwable e) {
                failed = e;
            }
            try {
                out.count = outCount;
                out.failure = failed;
                out.last = true;
                feed.put(out);
            } catch (Feed.Closed e) {
                // the reading side stopped first
            }
        }

        private void decodeTransaction() throws IOException, HistoryFormatException {
            long id = varlong();
            put(id);
            put(count("session"));
            put(count("seq"));
            int outcome = byte1();
            put(outcome);
            if (outcome >= Outcome.values().length) {
                throw corrupt("transaction " + txnNo + " (T" + id + ") has outcome code " + outcome);
            }
            int sqlCount = count("statements");
            put(sqlCount);
            for (int i = 0; i < sqlCount; i++) {
                putString(raw());
            }
            int opCount = count("operations");
            put(opCount);
            if (txnNo - 1 == HistoryColumns.MAX_TRANSACTIONS) {
                throw new HistoryFormatException("the reading side stops here with its own error", null);
            }
            for (int i = 0; i < opCount; i++) {
                decodeOp();
            }
        }

        private void decodeOp() throws IOException, HistoryFormatException {
            int code = byte1();
            put(code);
            int kind = code & 3;
            put(count("stmt"));
            int table = decodeRef();
            switch (kind) {
                case OP_READ -> {
                    if ((code & ~(3 | LOCKING | MATCHED)) != 0) {
                        throw corrupt("a read with flags " + code);
                    }
                    putRowOrder(table, decodeRef());
                    decodeWList();
                }
                case OP_WRITE -> {
                    int wk = code >>> 2;
                    if (wk >= WriteKind.values().length) {
                        throw corrupt("a write of kind code " + wk);
                    }
                    putRowOrder(table, decodeRef());
                    decodeWList();
                }
                case OP_PRED -> {
                    if ((code & ~(3 | LOCKING | HAS_PREDICATE)) != 0) {
                        throw corrupt("a predicate read with flags " + code);
                    }
                    if ((code & HAS_PREDICATE) != 0) {
                        decodeRef();
                    }
                    int n = count("rows of a predicate read");
                    put(n);
                    for (int i = 0; i < n; i++) {
                        putRowOrder(table, decodeRef());
                        decodeWList();
                    }
                }
                default -> throw corrupt("an operation of unknown kind " + kind);
            }
        }

        /** A string reference; returns the string's number. */
        private int decodeRef() throws IOException, HistoryFormatException {
            int k = count("string reference");
            put(k);
            if (k == 0) {
                String text = raw();
                putString(text);
                if (stringCount == emptyText.length) {
                    emptyText = Arrays.copyOf(emptyText, stringCount * 2);
                }
                emptyText[stringCount] = text.isEmpty();
                return stringCount++;
            }
            if (k > stringCount) {
                throw corrupt("a reference to string " + k + " of " + stringCount);
            }
            return k - 1;
        }

        /** The row's format order, made here on its first operation: the reading side only keeps its state. */
        private void putRowOrder(int table, int row) {
            RowOrder o = orders.known(table, row);
            if (o == null) {
                o = orders.of(table, row);
                o.emptyRowText = emptyText[row];
            }
            putObject(o);
        }

        /** The list's length and count of new entries, where its header ended (for the reading side's check), the entries as read. */
        private void decodeWList() throws IOException, HistoryFormatException {
            put(count("wList length"));
            int freshCount = count("new wList entries");
            put(freshCount);
            put(consumed + pos);
            for (int i = 0; i < freshCount; i++) {
                put(varlong());
            }
        }

        private void put(long v) {
            if (outCount == outValues.length) {
                ship();
            }
            outValues[outCount++] = v;
        }

        /** A string as its slot among the chunk's strings, in the chunk of the slot. */
        private void putString(String s) {
            putObject(s);
        }

        private void putObject(Object x) {
            if (outCount == outValues.length) {
                ship();
            }
            outValues[outCount++] = out.add(x);
        }

        private void ship() {
            out.count = outCount;
            sink.put(out);
            out = sink.fresh();
            outValues = out.values;
            outCount = 0;
        }
    }

    /** A run of decoded values, with the strings they name by slot; the last one says what stopped the decoder, if anything. */
    private static final class Chunk {
        final long[] values = new long[1 << 14];
        int count;
        /** The strings and rows the values name by slot, in their order. */
        Object[] objects = new Object[1 << 12];
        int objectCount;
        boolean last;
        Throwable failure;

        int add(Object x) {
            if (objectCount == objects.length) {
                objects = Arrays.copyOf(objects, objectCount * 2);
            }
            objects[objectCount] = x;
            return objectCount++;
        }
    }

    /**
     * Chunks from the decoding thread to the reading one, in order, and back for reuse: a few hundred KB in flight however
     * large the file. Either side may stop early: the reader at an error of its own (it then closes the feed and the decoder
     * stops at its next chunk), the decoder at the file's first defect, sent as the last chunk's failure at the place the
     * reader reaches it, after every value before it (so that the reader's own checks, which need the rows' state, come
     * first where they do on one thread).
     */
    static final class Feed {
        private final ArrayBlockingQueue<Chunk> full = new ArrayBlockingQueue<>(8);
        private final ArrayBlockingQueue<Chunk> spare = new ArrayBlockingQueue<>(10);
        private volatile boolean closed;

        /** Thrown on the decoding side once the reader stopped. */
        static final class Closed extends RuntimeException {
            Closed() {
                super(null, null, false, false);
            }
        }

        Chunk fresh() {
            Chunk c = spare.poll();
            return c != null ? c : new Chunk();
        }

        void put(Chunk c) {
            try {
                while (!full.offer(c, 20, TimeUnit.MILLISECONDS)) {
                    if (closed) {
                        throw new Closed();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Closed();
            }
        }

        Chunk take() throws InterruptedIOException {
            try {
                return full.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading a history");
            }
        }

        void recycle(Chunk c) {
            Arrays.fill(c.objects, 0, c.objectCount, null);
            c.objectCount = 0;
            c.count = 0;
            spare.offer(c);
        }

        void close() {
            closed = true;
            full.clear();
        }
    }
}
