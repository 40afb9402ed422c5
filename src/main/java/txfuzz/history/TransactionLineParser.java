package txfuzz.history;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one transaction line of a history with Jackson's token stream instead of data binding:
 * data binding (reflection, a creator per object, boxed numbers, a list per wList) was most of the
 * time of reading a history of a million transactions. It accepts only the shape txfuzz writes —
 * known fields, once each, with their JSON types — and answers {@code null} for anything else, so
 * that the caller reads that line with data binding, which gives the same value or the exact error.
 *
 * <p>Table names and row ids repeat on every operation that touches them: one copy of each is kept
 * per parser (per file read), as the data-binding reader does.
 */
final class TransactionLineParser {
    private static final JsonFactory JSON = new JsonFactory();

    private final Map<String, String> shared = new HashMap<>();
    private final Map<String, Map<String, RowOrder>> orders = new HashMap<>();
    private long[] idScratch = new long[64];
    /**
     * The line's transaction aborted (known when its outcome comes before its ops, as the writer puts it): its lists
     * do not extend a row's shared order, or every committed list of the row after it would get its own copy.
     */
    private boolean aborted;

    /**
     * The longest wList read so far of one row, in an array with room to grow. Every wList of the row
     * that is a prefix of it is a view of this array: entries are only ever appended past the longest
     * view's end, so what a view covers never changes. A row's versions then cost its order once, not
     * a copy per operation (a read history of a million transactions held 640 MB of wList copies).
     */
    private static final class RowOrder {
        long[] ids;
        int length;

        RowOrder(long[] ids, int length) {
            this.ids = ids;
            this.length = length;
        }
    }

    /** The line's transaction, or null when the line is not in the canonical shape (or not valid). */
    Transaction parse(String line) {
        try (JsonParser p = JSON.createParser(line)) {
            Transaction t = transaction(p);
            return t != null && p.nextToken() == null ? t : null;
        } catch (IOException | RuntimeException notCanonical) {
            return null;
        }
    }

    private Transaction transaction(JsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            return null;
        }
        long id = -1;
        aborted = false;
        int session = -1;
        int seq = -1;
        Outcome outcome = null;
        List<String> sql = null;
        List<Op> ops = null;
        int seen = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            int bit;
            switch (name) {
                case "id" -> {
                    bit = 1;
                    id = integer(p, v);
                }
                case "session" -> {
                    bit = 2;
                    session = (int) integer(p, v);
                }
                case "seq" -> {
                    bit = 4;
                    seq = (int) integer(p, v);
                }
                case "outcome" -> {
                    bit = 8;
                    outcome = Outcome.parse(string(p, v));
                    aborted = outcome == Outcome.ABORTED;
                }
                case "sql" -> {
                    bit = 16;
                    sql = strings(p, v);
                }
                case "ops" -> {
                    bit = 32;
                    ops = ops(p, v);
                }
                default -> {
                    return null;
                }
            }
            if ((seen & bit) != 0 || (bit == 16 && sql == null) || (bit == 32 && ops == null)) {
                return null;
            }
            seen |= bit;
        }
        if ((seen & 15) != 15 || p.currentToken() != JsonToken.END_OBJECT) {
            return null;
        }
        return new Transaction(id, session, seq, outcome, sql, ops);
    }

    private List<Op> ops(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.START_ARRAY) {
            return null;
        }
        List<Op> ops = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
            Op op = op(p);
            if (op == null) {
                return null;
            }
            ops.add(op);
        }
        return t == JsonToken.END_ARRAY ? ops : null;
    }

    private Op op(JsonParser p) throws IOException {
        String kindOfOp = null;
        int stmt = -1;
        String table = null;
        String row = null;
        WList wList = null;
        boolean locking = false;
        boolean matched = false;
        WriteKind kind = null;
        String predicate = null;
        List<RowVersion> rows = null;
        int seen = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            int bit;
            switch (name) {
                case "op" -> {
                    bit = 1;
                    kindOfOp = string(p, v);
                }
                case "stmt" -> {
                    bit = 2;
                    stmt = (int) integer(p, v);
                }
                case "table" -> {
                    bit = 4;
                    table = sharedString(p, v);
                }
                case "row" -> {
                    bit = 8;
                    row = sharedString(p, v);
                }
                case "wlist" -> {
                    bit = 16;
                    wList = wList(p, v);
                }
                case "locking" -> {
                    bit = 32;
                    locking = bool(v);
                }
                case "matched" -> {
                    bit = 64;
                    matched = bool(v);
                }
                case "kind" -> {
                    bit = 128;
                    kind = WriteKind.parse(string(p, v));
                }
                case "predicate" -> {
                    bit = 256;
                    predicate = v == JsonToken.VALUE_NULL ? null : string(p, v);
                }
                case "rows" -> {
                    bit = 512;
                    rows = rowVersions(p, v);
                    if (rows == null) {
                        return null;
                    }
                }
                default -> {
                    return null;
                }
            }
            if ((seen & bit) != 0) {
                return null;
            }
            seen |= bit;
        }
        if (kindOfOp == null || (seen & 2) == 0) {
            return null;
        }
        // exactly the fields each kind of op has; anything else is data binding's to accept or refuse
        return switch (kindOfOp) {
            case "read" -> (seen & ~(1 | 2 | 4 | 8 | 16 | 32 | 64)) == 0 ? new Read(stmt, table, row, share(table, row, wList), locking, matched) : null;
            case "write" -> (seen & ~(1 | 2 | 4 | 8 | 16 | 128)) == 0 ? new Write(stmt, table, row, kind, share(table, row, wList)) : null;
            case "pred" -> (seen & ~(1 | 2 | 4 | 32 | 256 | 512)) == 0 ? new PredicateRead(stmt, table, predicate, locking, shareAll(table, rows)) : null;
            default -> null;
        };
    }

    private List<RowVersion> rowVersions(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.START_ARRAY) {
            return null;
        }
        List<RowVersion> rows = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
            String row = null;
            WList wList = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken f = p.nextToken();
                if (name.equals("row") && row == null) {
                    row = sharedString(p, f);
                } else if (name.equals("wlist") && wList == null) {
                    wList = wList(p, f);
                } else {
                    return null;
                }
            }
            rows.add(new RowVersion(row, wList));
        }
        return t == JsonToken.END_ARRAY ? rows : null;
    }

    private List<RowVersion> shareAll(String table, List<RowVersion> rows) {
        if (table == null) {
            return rows;
        }
        List<RowVersion> out = new ArrayList<>(rows.size());
        for (RowVersion rv : rows) {
            out.add(new RowVersion(rv.row(), share(table, rv.row(), rv.wList())));
        }
        return out;
    }

    /** {@code w} as a view of its row's shared order when it is a prefix of it (or extends it); else {@code w} itself. */
    private WList share(String table, String row, WList w) {
        if (table == null || row == null || w == null) {
            return w; // the op is invalid: its constructor says why
        }
        Map<String, RowOrder> ofTable = orders.computeIfAbsent(table, k -> new HashMap<>());
        RowOrder order = ofTable.get(row);
        long[] ids = w.raw();
        int n = w.size();
        if (order == null) {
            ofTable.put(row, new RowOrder(Arrays.copyOf(ids, Math.max(4, n * 2)), n));
            return WList.sharedPrefix(ofTable.get(row).ids, n);
        }
        int common = Math.min(n, order.length);
        if (!Arrays.equals(ids, 0, common, order.ids, 0, common)) {
            return w; // an incompatible order: the checker reports it, from this list's own copy
        }
        if (n > order.length && aborted) {
            return w; // an aborted writer's version: its own copy, the row's order left to the committed ones
        }
        if (n > order.length) {
            if (n > order.ids.length) {
                order.ids = Arrays.copyOf(order.ids, n * 2); // views of the old array keep it; theirs never changes
            }
            System.arraycopy(ids, order.length, order.ids, order.length, n - order.length);
            order.length = n;
        }
        return WList.sharedPrefix(order.ids, n);
    }

    private WList wList(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.START_ARRAY) {
            throw new NotCanonical();
        }
        int n = 0;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.VALUE_NUMBER_INT) {
            long id = p.getLongValue();
            if (id < 0) {
                throw new NotCanonical();
            }
            if (n == idScratch.length) {
                idScratch = Arrays.copyOf(idScratch, n * 2);
            }
            idScratch[n++] = id;
        }
        if (t != JsonToken.END_ARRAY || n == 0) {
            throw new NotCanonical();
        }
        return WList.owning(Arrays.copyOf(idScratch, n));
    }

    private static long integer(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw new NotCanonical();
        }
        long x = p.getLongValue();
        if (x < Integer.MIN_VALUE || x > Integer.MAX_VALUE) {
            throw new NotCanonical(); // ids beyond int are rare; data binding reads them
        }
        return x;
    }

    private static boolean bool(JsonToken v) {
        if (v == JsonToken.VALUE_TRUE) {
            return true;
        }
        if (v == JsonToken.VALUE_FALSE) {
            return false;
        }
        throw new NotCanonical();
    }

    private static String string(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.VALUE_STRING) {
            throw new NotCanonical();
        }
        return p.getText();
    }

    /** Table names and row ids (numbers accepted, as data binding does), one copy of each. */
    private String sharedString(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.VALUE_STRING && v != JsonToken.VALUE_NUMBER_INT) {
            throw new NotCanonical();
        }
        String s = p.getText();
        return s.length() > 64 ? s : shared.computeIfAbsent(s, k -> k);
    }

    private static List<String> strings(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.START_ARRAY) {
            return null;
        }
        List<String> out = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.VALUE_STRING) {
            out.add(p.getText());
        }
        return t == JsonToken.END_ARRAY ? out : null;
    }

    /** The line is not in the shape this parser reads; data binding reads it. */
    private static final class NotCanonical extends RuntimeException {
        NotCanonical() {
            super(null, null, false, false);
        }
    }
}
