package txfuzz.history;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.Writer;

/**
 * Writes transactions as history lines straight to a token stream, the same text data binding
 * writes ({@link HistoryJson#line}), without its reflection and per-value serialisers: those made
 * writing a million transactions take a minute. Field order and omitted defaults follow the
 * records' data binding (HistoryJsonTest compares the two).
 */
final class TransactionLineWriter implements AutoCloseable {
    private static final JsonFactory JSON = new JsonFactory();

    private final Writer out;
    private final JsonGenerator g;

    TransactionLineWriter(Writer out) throws IOException {
        this.out = out;
        this.g = JSON.createGenerator(out);
        g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        g.setRootValueSeparator(null); // lines are separated by the newline, not by the default space
    }

    /** One transaction and its newline. */
    void write(Transaction t) throws IOException {
        g.writeStartObject();
        g.writeNumberField("id", t.id());
        g.writeNumberField("session", t.session());
        g.writeNumberField("seq", t.seq());
        g.writeStringField("outcome", t.outcome().label());
        if (!t.sql().isEmpty()) {
            g.writeArrayFieldStart("sql");
            for (String s : t.sql()) {
                g.writeString(s);
            }
            g.writeEndArray();
        }
        g.writeArrayFieldStart("ops");
        for (Op op : t.ops()) {
            op(op);
        }
        g.writeEndArray();
        g.writeEndObject();
        g.flush();
        out.write('\n');
    }

    private void op(Op op) throws IOException {
        g.writeStartObject();
        if (op instanceof Read r) {
            g.writeStringField("op", "read");
            g.writeNumberField("stmt", r.stmt());
            g.writeStringField("table", r.table());
            g.writeStringField("row", r.row());
            wList(r.wList());
            if (r.locking()) {
                g.writeBooleanField("locking", true);
            }
            if (r.matched()) {
                g.writeBooleanField("matched", true);
            }
        } else if (op instanceof Write w) {
            g.writeStringField("op", "write");
            g.writeNumberField("stmt", w.stmt());
            g.writeStringField("table", w.table());
            g.writeStringField("row", w.row());
            g.writeStringField("kind", w.kind().label());
            wList(w.wList());
        } else {
            PredicateRead p = (PredicateRead) op;
            g.writeStringField("op", "pred");
            g.writeNumberField("stmt", p.stmt());
            g.writeStringField("table", p.table());
            g.writeStringField("predicate", p.predicate());
            if (p.locking()) {
                g.writeBooleanField("locking", true);
            }
            g.writeArrayFieldStart("rows");
            for (RowVersion rv : p.rows()) {
                g.writeStartObject();
                g.writeStringField("row", rv.row());
                wList(rv.wList());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    private void wList(WList w) throws IOException {
        g.writeArrayFieldStart("wlist");
        long[] ids = w.raw();
        for (int i = 0; i < w.size(); i++) {
            g.writeNumber(ids[i]);
        }
        g.writeEndArray();
    }

    @Override
    public void close() throws IOException {
        g.close();
    }
}
