package txfuzz.reduce;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import txfuzz.reduce.Sql.Token;

/**
 * Reading and editing the setup's SQL text: CREATE TABLE (column definitions and constraints),
 * CREATE INDEX, and INSERT ... VALUES (rows, columns). Anything of another shape is left alone.
 */
final class SchemaText {
    private SchemaText() {
    }

    private static final Set<String> TABLE_CONSTRAINT_STARTS = Set.of("PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "CONSTRAINT", "KEY", "INDEX");
    private static final Set<String> COLUMN_CLAUSE_STARTS = Set.of("DEFAULT", "NOT", "NULL", "CHECK", "PRIMARY", "UNIQUE", "REFERENCES",
            "CONSTRAINT", "COLLATE", "AUTO_INCREMENT", "GENERATED");

    /** Columns the reducer never removes: the isolation oracle's row-tracking instrumentation. */
    static boolean instrumentation(String column) {
        String c = column.toLowerCase(Locale.ROOT);
        return c.equals("rid") || c.equals("wl");
    }

    // ------------------------------------------------------------------ CREATE TABLE

    /** The table a CREATE TABLE creates, or null. */
    static String createdTable(String sql) {
        List<Token> t = Sql.tokens(sql);
        if (t.size() < 3 || !t.get(0).is("CREATE")) {
            return null;
        }
        int i = 1;
        while (i < t.size() && t.get(i).type() == Sql.Type.WORD && !t.get(i).is("TABLE")) {
            i++; // CREATE [TEMPORARY|...] TABLE
        }
        if (i + 1 >= t.size() || !t.get(i).is("TABLE")) {
            return null;
        }
        i++;
        if (t.get(i).is("IF") && i + 3 < t.size()) {
            i += 3;
        }
        return Sql.name(t.get(i));
    }

    /** The table a CREATE [UNIQUE] INDEX is on, or null. */
    static String indexedTable(String sql) {
        List<Token> t = Sql.tokens(sql);
        if (t.isEmpty() || !t.get(0).is("CREATE")) {
            return null;
        }
        boolean index = false;
        for (int i = 1; i + 1 < t.size(); i++) {
            if (t.get(i).is("INDEX")) {
                index = true;
            }
            if (index && t.get(i).is("ON") && t.get(i).depth() == 0) {
                return Sql.name(t.get(i + 1));
            }
            if (t.get(i).is("TABLE")) {
                return null;
            }
        }
        return null;
    }

    static boolean isIndex(String sql) {
        return indexedTable(sql) != null;
    }

    /** One element of a CREATE TABLE's list: a column definition or a table constraint, as token range [from, to). */
    record Element(int from, int to, boolean column, String name) {
    }

    /** The elements of a CREATE TABLE, or empty when the text is of another shape. */
    static Optional<List<Element>> elements(List<Token> t) {
        int open = -1;
        for (int i = 0; i < t.size(); i++) {
            if (t.get(i).is("(")) {
                open = i;
                break;
            }
            if (t.get(i).is("AS")) {
                return Optional.empty();
            }
        }
        if (open < 0) {
            return Optional.empty();
        }
        int close = Sql.closing(t, open);
        if (close < 0) {
            return Optional.empty();
        }
        List<Element> out = new ArrayList<>();
        for (int[] p : Sql.split(t, open + 1, close, t.get(open).depth() + 1)) {
            if (p[0] >= p[1]) {
                return Optional.empty();
            }
            Token first = t.get(p[0]);
            boolean constraint = first.type() == Sql.Type.WORD && TABLE_CONSTRAINT_STARTS.contains(first.upper());
            out.add(new Element(p[0], p[1], !constraint, constraint ? null : Sql.name(first)));
        }
        return Optional.of(out);
    }

    /**
     * Character spans whose deletion removes one constraint from a CREATE TABLE: whole table
     * constraints (with their comma) and, inside column definitions, NOT NULL, DEFAULT x, CHECK (...),
     * PRIMARY KEY, UNIQUE, REFERENCES t (c). Spans never overlap.
     */
    static List<int[]> constraintSpans(String sql) {
        List<Token> t = Sql.tokens(sql);
        List<int[]> spans = new ArrayList<>();
        Optional<List<Element>> els = elements(t);
        if (els.isEmpty()) {
            return spans;
        }
        List<Element> list = els.get();
        for (int k = 0; k < list.size(); k++) {
            Element e = list.get(k);
            if (!e.column()) {
                if (k == 0) {
                    continue; // a table constraint first: leave such hand-written shapes alone
                }
                Element prev = list.get(k - 1);
                spans.add(new int[] {t.get(prev.to() - 1).end(), t.get(e.to() - 1).end()});
                continue;
            }
            if (instrumentation(e.name())) {
                continue;
            }
            int depth = t.get(e.from()).depth();
            // clauses start at a keyword at the element's depth, after the name and the type
            List<Integer> starts = new ArrayList<>();
            for (int i = e.from() + 2; i < e.to(); i++) {
                Token x = t.get(i);
                if (x.depth() == depth && x.type() == Sql.Type.WORD && COLUMN_CLAUSE_STARTS.contains(x.upper())) {
                    if (x.is("NULL") && i > e.from() && t.get(i - 1).is("NOT")) {
                        continue;
                    }
                    if (x.is("KEY") || (i > e.from() && t.get(i - 1).is("DEFAULT"))) {
                        continue;
                    }
                    starts.add(i);
                }
            }
            for (int s = 0; s < starts.size(); s++) {
                int from = starts.get(s);
                int to = s + 1 < starts.size() ? starts.get(s + 1) : e.to();
                if (t.get(from).is("NULL")) {
                    continue; // an explicit NULL is no constraint
                }
                int startChar = t.get(from - 1).end();
                int endChar = t.get(to - 1).end();
                spans.add(new int[] {startChar, endChar});
            }
        }
        return spans;
    }

    /** {@code sql} without the given character spans (applied right to left). */
    static String delete(String sql, List<int[]> spans) {
        List<int[]> sorted = new ArrayList<>(spans);
        sorted.sort((a, b) -> Integer.compare(b[0], a[0]));
        String out = sql;
        for (int[] s : sorted) {
            out = out.substring(0, s[0]) + out.substring(s[1]);
        }
        return out;
    }

    /** Column names a CREATE TABLE defines, in order. */
    static List<String> columns(String createTable) {
        List<String> out = new ArrayList<>();
        elements(Sql.tokens(createTable)).ifPresent(els -> els.stream().filter(Element::column).forEach(e -> out.add(e.name())));
        return out;
    }

    /** The CREATE TABLE without column {@code column}'s definition. */
    static Optional<String> dropColumnDef(String sql, String column) {
        List<Token> t = Sql.tokens(sql);
        Optional<List<Element>> els = elements(t);
        if (els.isEmpty()) {
            return Optional.empty();
        }
        List<Element> list = els.get();
        long columns = list.stream().filter(Element::column).count();
        for (int k = 0; k < list.size(); k++) {
            Element e = list.get(k);
            if (e.column() && e.name().equalsIgnoreCase(column)) {
                if (columns < 2) {
                    return Optional.empty();
                }
                if (k == 0) {
                    // "(a INT, b INT" -> "(b INT"
                    return Optional.of(sql.substring(0, t.get(e.from()).start()) + sql.substring(t.get(list.get(1).from()).start()));
                }
                return Optional.of(sql.substring(0, t.get(list.get(k - 1).to() - 1).end()) + sql.substring(t.get(e.to() - 1).end()));
            }
        }
        return Optional.empty();
    }

    /**
     * Removes FOREIGN KEY ... REFERENCES {@code parent} table constraints and column-level
     * REFERENCES {@code parent} clauses from a CREATE TABLE.
     */
    static String dropReferencesTo(String sql, String parent) {
        List<Token> t = Sql.tokens(sql);
        List<int[]> spans = new ArrayList<>();
        for (int[] s : constraintSpans(sql)) {
            String text = sql.substring(s[0], s[1]);
            List<Token> st = Sql.tokens(text);
            for (int i = 0; i + 1 < st.size(); i++) {
                if (st.get(i).is("REFERENCES") && Sql.name(st.get(i + 1)).equalsIgnoreCase(parent)) {
                    spans.add(s);
                    break;
                }
            }
        }
        return spans.isEmpty() || t.isEmpty() ? sql : delete(sql, spans);
    }

    // ------------------------------------------------------------------ INSERT ... VALUES

    /**
     * INSERT/REPLACE [INTO] table [(columns)] VALUES (row), (row) ... [rest], as token positions.
     *
     * @param columns column names, or null when the statement lists none
     * @param rows    token ranges [from, to) of each row's parenthesised group
     */
    record Insert(String table, List<String> columns, int columnsOpen, int columnsClose, List<int[]> rows, int restFrom, List<Token> tokens) {
    }

    static Optional<Insert> insert(String sql) {
        List<Token> t = Sql.tokens(sql);
        if (t.isEmpty() || !(t.get(0).is("INSERT") || t.get(0).is("REPLACE"))) {
            return Optional.empty();
        }
        int i = 1;
        if (i < t.size() && t.get(i).is("INTO")) {
            i++;
        }
        if (i >= t.size()) {
            return Optional.empty();
        }
        String table = Sql.name(t.get(i++));
        List<String> columns = null;
        int cOpen = -1;
        int cClose = -1;
        if (i < t.size() && t.get(i).is("(")) {
            cOpen = i;
            cClose = Sql.closing(t, i);
            if (cClose < 0) {
                return Optional.empty();
            }
            columns = new ArrayList<>();
            for (int[] p : Sql.split(t, cOpen + 1, cClose, 1)) {
                if (p[1] - p[0] != 1) {
                    return Optional.empty();
                }
                columns.add(Sql.name(t.get(p[0])));
            }
            i = cClose + 1;
        }
        if (i >= t.size() || !t.get(i).is("VALUES")) {
            return Optional.empty();
        }
        i++;
        List<int[]> rows = new ArrayList<>();
        while (i < t.size() && t.get(i).is("(")) {
            int close = Sql.closing(t, i);
            if (close < 0) {
                return Optional.empty();
            }
            rows.add(new int[] {i, close + 1});
            i = close + 1;
            if (i < t.size() && t.get(i).is(",")) {
                i++;
            } else {
                break;
            }
        }
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Insert(table, columns, cOpen, cClose, rows, i, t));
    }

    /** The INSERT with only the rows at {@code keep} (indexes into its rows), or empty when none is kept. */
    static Optional<String> keepRows(String sql, List<Integer> keep) {
        Optional<Insert> ins = insert(sql);
        if (ins.isEmpty() || keep.isEmpty()) {
            return Optional.empty();
        }
        Insert in = ins.get();
        List<Token> t = in.tokens();
        List<String> rows = new ArrayList<>();
        for (int k : keep) {
            int[] r = in.rows().get(k);
            rows.add(sql.substring(t.get(r[0]).start(), t.get(r[1] - 1).end()));
        }
        int from = t.get(in.rows().get(0)[0]).start();
        int[] last = in.rows().get(in.rows().size() - 1);
        int to = t.get(last[1] - 1).end();
        return Optional.of(sql.substring(0, from) + String.join(", ", rows) + sql.substring(to));
    }

    /**
     * The INSERT into {@code table} without {@code column} (the column at {@code position} of the
     * table's definition, for an INSERT that lists no columns). Empty when the statement is of
     * another shape or mentions the column anywhere else.
     */
    static Optional<String> dropInsertColumn(String sql, String column, int position) {
        Optional<Insert> ins = insert(sql);
        if (ins.isEmpty()) {
            return Optional.empty();
        }
        Insert in = ins.get();
        List<Token> t = in.tokens();
        int pos = position;
        if (in.columns() != null) {
            pos = -1;
            for (int k = 0; k < in.columns().size(); k++) {
                if (in.columns().get(k).equalsIgnoreCase(column)) {
                    pos = k;
                }
            }
            if (pos < 0) {
                return Sql.mentions(sql, column) ? Optional.empty() : Optional.of(sql);
            }
            if (in.columns().size() < 2) {
                return Optional.empty();
            }
        }
        // the rest (ON CONFLICT ...) must not name the column
        for (int i = in.restFrom(); i < t.size(); i++) {
            if (t.get(i).type() == Sql.Type.WORD && t.get(i).text().equalsIgnoreCase(column)) {
                return Optional.empty();
            }
        }
        List<int[]> spans = new ArrayList<>();
        if (in.columns() != null) {
            spans.add(elementSpan(t, in.columnsOpen(), in.columnsClose(), pos));
        }
        for (int[] r : in.rows()) {
            List<int[]> parts = Sql.split(t, r[0] + 1, r[1] - 1, t.get(r[0]).depth() + 1);
            if (parts.size() <= pos || parts.size() < 2) {
                return Optional.empty();
            }
            spans.add(elementSpan(t, r[0], r[1] - 1, pos));
        }
        return Optional.of(delete(sql, spans));
    }

    /** The character span of the {@code k}-th comma-separated element between tokens open and close, with one comma. */
    private static int[] elementSpan(List<Token> t, int open, int close, int k) {
        List<int[]> parts = Sql.split(t, open + 1, close, t.get(open).depth() + 1);
        int[] p = parts.get(k);
        if (k == 0) {
            int nextStart = parts.size() > 1 ? t.get(parts.get(1)[0]).start() : t.get(close).start();
            return new int[] {t.get(p[0]).start(), nextStart};
        }
        int prevEnd = t.get(parts.get(k - 1)[1] - 1).end();
        return new int[] {prevEnd, t.get(p[1] - 1).end()};
    }
}
