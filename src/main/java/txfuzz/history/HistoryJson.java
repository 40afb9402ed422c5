package txfuzz.history;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The history file format (docs/history-format.md): JSON lines, one transaction per line, after
 * an optional header line {@code {"format":"txfuzz-history","version":1,"meta":{...}}}. One line
 * per transaction lets a concurrent run append each transaction as it ends, and lets a reader
 * stream 100,000 transactions without holding the text.
 */
public final class HistoryJson {
    public static final String FORMAT = "txfuzz-history";
    public static final int VERSION = 1;

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .registerModule(new SimpleModule().addDeserializer(String.class, new SharedStrings()));

    /**
     * Table names and row ids repeat on every operation that touches them: one copy of each (per read
     * of a file) keeps a history of a million transactions within the default heap.
     */
    private static final class SharedStrings extends StringDeserializer {
        static final Object SHARED = SharedStrings.class;
        /** Longer strings (SQL text) rarely repeat; sharing them would only grow the map. */
        static final int MAX_LENGTH = 64;

        @Override
        @SuppressWarnings("unchecked")
        public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            String s = super.deserialize(p, ctxt);
            Object shared = ctxt.getAttribute(SHARED);
            if (s == null || s.length() > MAX_LENGTH || !(shared instanceof Map<?, ?>)) {
                return s;
            }
            return ((Map<String, String>) shared).computeIfAbsent(s, k -> k);
        }
    }

    private HistoryJson() {
    }

    /** The header line (no newline). */
    public static String header(Map<String, String> meta) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("format", FORMAT);
        h.put("version", VERSION);
        if (!meta.isEmpty()) {
            h.put("meta", meta);
        }
        return json(h);
    }

    /** One transaction as one line (no newline). */
    public static String line(Transaction t) {
        return json(t);
    }

    public static String write(History h) {
        StringBuilder sb = new StringBuilder();
        sb.append(header(h.meta())).append('\n');
        for (Transaction t : h.transactions()) {
            sb.append(line(t)).append('\n');
        }
        return sb.toString();
    }

    public static void write(History h, Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8); TransactionLineWriter lines = new TransactionLineWriter(w)) {
            w.write(header(h.meta()));
            w.write('\n');
            for (Transaction t : h.transactions()) {
                lines.write(t);
            }
        }
    }

    public static History read(String text, String source) throws HistoryFormatException {
        try {
            return read(new BufferedReader(new StringReader(text)), source, true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads every line through data binding, as before the streaming parser: for tests that compare the two. */
    static History readByDataBinding(String text, String source) throws HistoryFormatException {
        try {
            return read(new BufferedReader(new StringReader(text)), source, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static History read(Path file) throws HistoryFormatException {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(r, file.toString(), true);
        } catch (NoSuchFileException e) {
            throw new HistoryFormatException(file + ": no such file", e);
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new HistoryFormatException(file + ": not a history file: it is not UTF-8 text (one JSON object per line)", e);
        } catch (IOException e) {
            throw new HistoryFormatException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static History read(BufferedReader r, String source, boolean streaming) throws IOException, HistoryFormatException {
        Map<String, String> meta = Map.of();
        List<Transaction> txns = new ArrayList<>();
        Map<Long, Integer> lineOfId = new HashMap<>();
        Map<Long, Integer> lineOfSessionSeq = new HashMap<>();
        int lineNo = 0;
        boolean first = true;
        ObjectReader transactions = MAPPER.readerFor(Transaction.class).withAttribute(SharedStrings.SHARED, new HashMap<String, String>());
        TransactionLineParser fast = streaming ? new TransactionLineParser() : null;
        String line;
        while ((line = r.readLine()) != null) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            String at = source + ":" + lineNo;
            if (first && line.contains("\"format\"")) {
                first = false;
                meta = readHeader(line, at);
                continue;
            }
            first = false;
            Transaction t = fast == null ? null : fast.parse(line);
            try {
                if (t == null) { // not in the shape txfuzz writes: data binding reads it, or says what is wrong
                    t = transactions.readValue(line);
                }
            } catch (ValueInstantiationException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                throw new HistoryFormatException(at + ": " + cause.getMessage(), e);
            } catch (JsonProcessingException e) {
                throw new HistoryFormatException(at + col(e.getLocation()) + ": " + e.getOriginalMessage(), e);
            }
            if (t == null) {
                throw new HistoryFormatException(at + ": null is not a transaction", null);
            }
            Integer prev = lineOfId.putIfAbsent(t.id(), lineNo);
            if (prev != null) {
                throw new HistoryFormatException(at + ": T" + t.id() + " already appeared on line " + prev, null);
            }
            long key = ((long) t.session() << 32) | (t.seq() & 0xffffffffL);
            prev = lineOfSessionSeq.putIfAbsent(key, lineNo);
            if (prev != null) {
                throw new HistoryFormatException(at + ": session " + t.session() + " seq " + t.seq() + " already taken on line " + prev, null);
            }
            txns.add(t);
        }
        return new History(meta, txns);
    }

    private static Map<String, String> readHeader(String line, String at) throws HistoryFormatException {
        JsonNode h;
        try {
            h = MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            throw new HistoryFormatException(at + col(e.getLocation()) + ": " + e.getOriginalMessage(), e);
        }
        if (!FORMAT.equals(h.path("format").asText())) {
            throw new HistoryFormatException(at + ": header format must be \"" + FORMAT + "\", not " + h.get("format"), null);
        }
        if (h.path("version").asInt(-1) != VERSION) {
            throw new HistoryFormatException(at + ": history format version " + h.get("version") + " is not supported (this txfuzz reads "
                    + VERSION + ")", null);
        }
        Map<String, String> meta = new LinkedHashMap<>();
        JsonNode m = h.path("meta");
        if (!m.isMissingNode() && !m.isObject()) {
            throw new HistoryFormatException(at + ": meta must be an object of strings", null);
        }
        m.fields().forEachRemaining(e -> meta.put(e.getKey(), e.getValue().asText()));
        return meta;
    }

    private static String json(Object o) {
        try {
            return MAPPER.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("history values always serialise", e);
        }
    }

    private static String col(JsonLocation loc) {
        return loc == null || loc.getColumnNr() < 0 ? "" : ":" + loc.getColumnNr();
    }
}
