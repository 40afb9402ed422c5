package txfuzz.oracle.wss;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Optional;
import java.util.function.Function;
import txfuzz.gen.StatementStructure;
import txfuzz.gen.StatementStructure.ColumnDeclaration;
import txfuzz.gen.StatementStructure.ForeignKey;
import txfuzz.gen.StatementStructure.OneTableQuery;
import txfuzz.gen.StatementStructure.Reference;
import txfuzz.gen.StatementStructure.TableDefinition;
import txfuzz.model.DbState;
import txfuzz.model.TestCase;

/**
 * Generated-key columns of a case's schema (AUTO_INCREMENT, SERIAL, IDENTITY, GENERATED … AS
 * IDENTITY, a DEFAULT nextval(…), SQLite's INTEGER PRIMARY KEY), as written in its setup SQL, and
 * the columns that reference them through a foreign key.
 *
 * <p>Every engine allocates such a value when the INSERT runs, not at commit, and never gives it
 * back on rollback. A serial replay in commit order therefore hands out other numbers than the
 * concurrent run did, and that alone is no violation (issue 11, item 6). {@link #normalise} makes
 * the values comparable by position: in each state, a table's rows are ordered by everything except
 * generated keys and references to them, and a generated value is replaced by the position of its
 * row in that order ({@code #1}, {@code #2} …); a foreign-key value that names a generated key is
 * replaced by the same label. Two states then compare equal exactly when some renumbering of the
 * generated values maps one onto the other (when rows are told apart by their other columns), row
 * multiplicity included; a lost, duplicated or changed row still shows.
 *
 * <p>Not ranked by value: the rank of a generated value is the order the INSERTs ran in, which is
 * exactly what a commit-order replay cannot reproduce (T1 inserts first and commits last: it holds 1
 * in the run, 2 in the replay), so ranks by value would flag the correct engine the issue names.
 */
final class GeneratedKeys {
    /** A foreign-key column that names a generated key of {@code table}. */
    private record Ref(int column, String table, int target) {
    }

    private static final Pattern CREATE = Pattern.compile(
            "(?is)^\\s*CREATE\\s+(?:(?:GLOBAL\\s+|LOCAL\\s+)?(?:TEMP|TEMPORARY|MEMORY|CACHED)\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?"
                    + "([\\w.\"`\\[\\]]+)\\s*\\((.*)\\)[^)]*$");
    private static final Pattern ALTER_ADD = Pattern.compile(
            "(?is)^\\s*ALTER\\s+TABLE\\s+([\\w.\"`\\[\\]]+)\\s+ADD\\s+(?:COLUMN\\s+)?(?!CONSTRAINT\\b|PRIMARY\\b|UNIQUE\\b|FOREIGN\\b|CHECK\\b)(.*)$");
    private static final Pattern GENERATED = Pattern.compile(
            "(?is)\\bAUTO_?INCREMENT\\b|\\b(?:SMALL|BIG)?SERIAL[248]?\\b|\\bIDENTITY\\b|\\bnextval\\s*\\(");
    private static final Pattern ROWID = Pattern.compile("(?is)^\\s*INTEGER\\s+PRIMARY\\s+KEY\\b");
    private static final Pattern REFERENCES = Pattern.compile("(?is)\\bREFERENCES\\s+([\\w.\"`\\[\\]]+)\\s*(?:\\(\\s*([\\w\"`\\[\\]]+)\\s*\\))?");
    private static final Pattern TABLE_FK = Pattern.compile(
            "(?is)^(?:CONSTRAINT\\s+\\S+\\s+)?FOREIGN\\s+KEY\\s*\\(\\s*([\\w\"`\\[\\]]+)\\s*\\)\\s*REFERENCES\\s+([\\w.\"`\\[\\]]+)\\s*(?:\\(\\s*([\\w\"`\\[\\]]+)\\s*\\))?");
    private static final Pattern TABLE_CONSTRAINT = Pattern.compile("(?is)^(CONSTRAINT|PRIMARY|UNIQUE|FOREIGN|CHECK|KEY|INDEX|EXCLUDE|PERIOD)\\b");

    /** table (normalised name) → its generated-key column indexes */
    private final Map<String, TreeSet<Integer>> generated = new LinkedHashMap<>();
    /** table → its foreign-key columns that reference a generated key */
    private final Map<String, List<Ref>> refs = new LinkedHashMap<>();
    /** table → its column names in declaration order (what SELECT * returns) */
    private final Map<String, List<String>> columns = new LinkedHashMap<>();

    private GeneratedKeys() {
    }

    /**
     * The generated keys of {@code c} as run in {@code dialect} (which says whether INTEGER PRIMARY KEY is a row id),
     * read from the parsed setup ({@link StatementStructure}); a setup statement the parser does not read (a dialect's
     * table option JSqlParser lacks) is read from its text as before ({@link #definitionFromText}).
     */
    static GeneratedKeys of(TestCase c, txfuzz.dbms.Dialect dialect) {
        boolean rowid = dialect.has(txfuzz.dbms.Feature.INTEGER_PRIMARY_KEY_IS_ROWID);
        if (c.setup().stream().noneMatch(sql -> mayGenerateKeys(sql, rowid))) {
            return new GeneratedKeys(); // no statement has a word that makes a key generated: nothing to parse (the wss oracle asks for every case)
        }
        return parsed(c, dialect);
    }

    /** The generated keys as the parsed setup gives them, every CREATE and ALTER statement parsed. */
    static GeneratedKeys parsed(TestCase c, txfuzz.dbms.Dialect dialect) {
        return of(c, dialect, sql -> {
            if (!firstWordIs(sql, "CREATE") && !firstWordIs(sql, "ALTER")) {
                return Optional.empty(); // declares no column: not worth parsing (a setup's INSERTs are most of its text)
            }
            Optional<StatementStructure.Parsed> p = StatementStructure.of(sql);
            return p.isPresent() ? p.get().definition() : definitionFromText(sql);
        });
    }

    /** The words without one of which no column is a generated key, in either reading (the type or option names). */
    private static final List<String> GENERATING_WORDS = List.of("AUTO_INCREMENT", "AUTOINCREMENT", "SERIAL", "IDENTITY", "NEXTVAL");

    private static boolean mayGenerateKeys(String sql, boolean rowid) {
        if (!firstWordIs(sql, "CREATE") && !firstWordIs(sql, "ALTER")) {
            return false;
        }
        String upper = sql.toUpperCase(Locale.ROOT);
        return GENERATING_WORDS.stream().anyMatch(upper::contains) || rowid && upper.contains("INTEGER");
    }

    private static boolean firstWordIs(String sql, String word) {
        String s = sql.stripLeading();
        return s.regionMatches(true, 0, word, 0, word.length()) && (s.length() == word.length() || Character.isWhitespace(s.charAt(word.length())));
    }

    /** The generated keys as the text reading alone gives them (to compare the two readings). */
    static GeneratedKeys fromText(TestCase c, txfuzz.dbms.Dialect dialect) {
        return of(c, dialect, GeneratedKeys::definitionFromText);
    }

    private static GeneratedKeys of(TestCase c, txfuzz.dbms.Dialect dialect, Function<String, Optional<TableDefinition>> reader) {
        boolean rowid = dialect.has(txfuzz.dbms.Feature.INTEGER_PRIMARY_KEY_IS_ROWID);
        GeneratedKeys keys = new GeneratedKeys();
        Map<String, List<String>> columns = keys.columns;
        Map<String, List<String[]>> pendingRefs = new LinkedHashMap<>(); // table → {column, referenced table, referenced column}
        for (String sql : c.setup()) {
            Optional<TableDefinition> definition = reader.apply(sql);
            if (definition.isEmpty()) {
                continue;
            }
            TableDefinition d = definition.get();
            String table = d.table();
            if (d.creates()) {
                columns.put(table, new ArrayList<>());
            }
            List<String> cols = columns.computeIfAbsent(table, k -> new ArrayList<>());
            for (ColumnDeclaration col : d.columns()) {
                int index = cols.size();
                cols.add(col.name());
                if (col.generated() || (rowid && col.integerPrimaryKey())) {
                    keys.generated.computeIfAbsent(table, k -> new TreeSet<>()).add(index);
                }
                col.references().ifPresent(r -> pendingRefs.computeIfAbsent(table, k -> new ArrayList<>())
                        .add(new String[] {col.name(), r.table(), r.column().orElse(null)}));
            }
            for (ForeignKey fk : d.foreignKeys()) {
                pendingRefs.computeIfAbsent(table, k -> new ArrayList<>())
                        .add(new String[] {fk.column(), fk.references().table(), fk.references().column().orElse(null)});
            }
        }
        pendingRefs.forEach((table, list) -> {
            for (String[] p : list) {
                List<String> parentCols = columns.getOrDefault(p[1], List.of());
                TreeSet<Integer> parentKeys = keys.generated.getOrDefault(p[1], new TreeSet<>());
                int target = p[2] == null ? (parentKeys.isEmpty() ? -1 : parentKeys.first()) : parentCols.indexOf(p[2]);
                int column = columns.getOrDefault(table, List.of()).indexOf(p[0]);
                if (column >= 0 && target >= 0 && parentKeys.contains(target)) {
                    keys.refs.computeIfAbsent(table, k -> new ArrayList<>()).add(new Ref(column, p[1], target));
                }
            }
        });
        return keys;
    }

    /** What a CREATE TABLE or ALTER TABLE … ADD the parser does not read declares, read from its text. */
    static Optional<TableDefinition> definitionFromText(String sql) {
        Matcher m = CREATE.matcher(sql);
        Matcher a = ALTER_ADD.matcher(sql);
        List<String> elements;
        String table;
        boolean creates;
        if (m.matches()) {
            table = name(m.group(1));
            elements = splitTopLevel(m.group(2));
            creates = true;
        } else if (a.matches()) {
            table = name(a.group(1));
            elements = List.of(a.group(2));
            creates = false;
        } else {
            return Optional.empty();
        }
        List<ColumnDeclaration> cols = new ArrayList<>();
        List<ForeignKey> fks = new ArrayList<>();
        for (String e : elements) {
            String el = e.strip();
            Matcher fk = TABLE_FK.matcher(el);
            if (fk.find()) {
                fks.add(new ForeignKey(name(fk.group(1)), new Reference(name(fk.group(2)), Optional.ofNullable(fk.group(3)).map(GeneratedKeys::name))));
                continue;
            }
            if (TABLE_CONSTRAINT.matcher(el).find() || el.isEmpty()) {
                continue;
            }
            String[] parts = el.split("\\s+", 2);
            String def = parts.length > 1 ? parts[1] : "";
            Matcher r = REFERENCES.matcher(def);
            Optional<Reference> ref = r.find()
                    ? Optional.of(new Reference(name(r.group(1)), Optional.ofNullable(r.group(2)).map(GeneratedKeys::name))) : Optional.empty();
            cols.add(new ColumnDeclaration(name(parts[0]), GENERATED.matcher(def).find(), ROWID.matcher(def).find(), ref));
        }
        return Optional.of(new TableDefinition(table, creates, cols, fks));
    }

    /** Per table its columns, generated-key columns and references to generated keys (to compare two readings). */
    @Override
    public String toString() {
        return "columns " + columns + ", generated " + generated + ", references " + refs;
    }

    /** {@code table}'s columns in declaration order, as the setup declares them (lower case). */
    List<String> columnsOf(String table) {
        return columns.getOrDefault(name(table), List.of());
    }

    boolean isEmpty() {
        return generated.isEmpty();
    }

    /** Whether {@code table} (as a case names it) has a generated-key column. */
    boolean hasGeneratedKey(String table) {
        return generated.containsKey(name(table));
    }

    /** {@code s} with generated keys, and references to them, replaced by their rows' positions (see the class comment). */
    DbState normalise(DbState s) {
        if (isEmpty()) {
            return s;
        }
        // table → generated column → value → label
        Map<String, Map<Integer, Map<String, String>>> labels = new HashMap<>();
        Map<String, List<List<String>>> masked = new LinkedHashMap<>();
        s.tables().forEach((t, rows) -> {
            String key = name(t);
            TreeSet<Integer> gen = generated.getOrDefault(key, new TreeSet<>());
            List<Ref> rs = refs.getOrDefault(key, List.of());
            List<List<String>> out = new ArrayList<>();
            for (List<String> row : rows) {
                List<String> copy = new ArrayList<>(row);
                gen.forEach(i -> {
                    if (i < copy.size()) {
                        copy.set(i, "#gen");
                    }
                });
                rs.forEach(r -> {
                    if (r.column() < copy.size() && copy.get(r.column()) != null) {
                        copy.set(r.column(), "#ref");
                    }
                });
                out.add(copy);
            }
            masked.put(t, out);
            if (gen.isEmpty()) {
                return;
            }
            // position of each row among the table's rows ordered by everything else (ties: by value)
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                order.add(i);
            }
            Comparator<Integer> byRest = (x, y) -> compareRows(out.get(x), out.get(y));
            order.sort(byRest.thenComparing((x, y) -> compareRows(rows.get(x), rows.get(y))));
            Map<Integer, Map<String, String>> tableLabels = new HashMap<>();
            for (int pos = 0; pos < order.size(); pos++) {
                List<String> row = rows.get(order.get(pos));
                for (int g : gen) {
                    if (g < row.size() && row.get(g) != null) {
                        tableLabels.computeIfAbsent(g, k -> new HashMap<>()).putIfAbsent(row.get(g), "#" + (pos + 1));
                    }
                }
            }
            labels.put(key, tableLabels);
        });
        Map<String, List<List<String>>> result = new LinkedHashMap<>();
        s.tables().forEach((t, rows) -> {
            String key = name(t);
            List<List<String>> out = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                List<String> row = rows.get(i);
                List<String> copy = new ArrayList<>(masked.get(t).get(i));
                for (int g : generated.getOrDefault(key, new TreeSet<>())) {
                    if (g < row.size()) {
                        copy.set(g, label(labels, key, g, row.get(g)));
                    }
                }
                for (Ref r : refs.getOrDefault(key, List.of())) {
                    if (r.column() < row.size() && row.get(r.column()) != null) {
                        copy.set(r.column(), label(labels, r.table(), r.target(), row.get(r.column())));
                    }
                }
                out.add(copy);
            }
            result.put(t, out);
        });
        return new DbState(result);
    }

    /**
     * The FROM table and select list of a query the parser does not read, from its text: per item the column its
     * first word names, {@code *} for a lone {@code *} or {@code t.*}.
     */
    static Optional<OneTableQuery> queryFromText(String sql) {
        Matcher m = SELECT.matcher(sql);
        if (!m.find()) {
            return Optional.empty();
        }
        List<String> items = splitTopLevel(m.group(1));
        if (items.size() == 1 && items.get(0).strip().matches("(?:[\\w\"`]+\\.)?\\*")) {
            return Optional.of(new OneTableQuery(name(m.group(2)), List.of(Optional.of("*"))));
        }
        List<Optional<String>> columns = new ArrayList<>();
        for (String item : items) {
            columns.add(Optional.of(name(item.strip().split("\\s+")[0])));
        }
        return Optional.of(new OneTableQuery(name(m.group(2)), columns));
    }

    private static final Pattern SELECT = Pattern.compile(
            "(?is)^\\s*SELECT\\s+(?:DISTINCT\\s+|ALL\\s+)?(.*?)\\s+FROM\\s+([\\w.\"`\\[\\]]+)");

    /**
     * A query's result rows with the columns that return a generated key, or a reference to one,
     * compared by position like a table's ({@link #normalise}): each such value becomes the position of
     * its row among the result's rows ordered by the other columns. The columns are found in the select
     * list of a query on one table ({@code *}, {@code t.*}, {@code col}, {@code t.col}, {@code col AS x});
     * a result whose columns cannot be told is returned as is.
     */
    List<List<String>> normaliseResult(String sql, List<List<String>> rows) {
        if (isEmpty() || rows == null) {
            return rows;
        }
        Optional<StatementStructure.Parsed> parsed = StatementStructure.of(sql);
        Optional<OneTableQuery> query = parsed.isPresent() ? parsed.get().query() : queryFromText(sql);
        if (query.isEmpty()) {
            return rows;
        }
        String table = query.get().table();
        List<String> cols = columns.getOrDefault(table, List.of());
        java.util.Set<Integer> keyColumns = new java.util.HashSet<>(generated.getOrDefault(table, new TreeSet<>()));
        refs.getOrDefault(table, List.of()).forEach(r -> keyColumns.add(r.column()));
        if (keyColumns.isEmpty()) {
            return rows;
        }
        List<Optional<String>> items = query.get().items();
        TreeSet<Integer> masked = new TreeSet<>();
        if (items.size() == 1 && items.get(0).equals(Optional.of("*"))) {
            masked.addAll(keyColumns);
        } else {
            for (int i = 0; i < items.size(); i++) {
                int col = items.get(i).map(cols::indexOf).orElse(-1);
                if (col >= 0 && keyColumns.contains(col)) {
                    masked.add(i);
                }
            }
        }
        if (masked.isEmpty()) {
            return rows;
        }
        List<List<String>> rest = new ArrayList<>();
        for (List<String> row : rows) {
            List<String> copy = new ArrayList<>(row);
            masked.forEach(i -> {
                if (i < copy.size() && copy.get(i) != null) {
                    copy.set(i, "#gen");
                }
            });
            rest.add(copy);
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            order.add(i);
        }
        Comparator<Integer> byRest = (x, y) -> compareRows(rest.get(x), rest.get(y));
        order.sort(byRest.thenComparing((x, y) -> compareRows(rows.get(x), rows.get(y))));
        Map<String, String> label = new HashMap<>(); // one numbering for all key columns: a key and a reference to it agree
        List<List<String>> out = new ArrayList<>(rest);
        for (int pos = 0; pos < order.size(); pos++) {
            int r = order.get(pos);
            for (int i : masked) {
                String v = i < rows.get(r).size() ? rows.get(r).get(i) : null;
                if (v != null) {
                    label.putIfAbsent(v, "#" + (label.size() + 1));
                    out.get(r).set(i, label.get(v));
                }
            }
        }
        return out;
    }

    /**
     * The statements among {@code sql} that name a generated-key column outside an INSERT: they pick
     * rows by a key value, and the serial replay gave that value to another row, so they may address
     * other rows there. txfuzz cannot map them (the run does not record which INSERT got which key), so
     * a violation involving them is reported with this said.
     */
    List<String> keyedStatements(List<String> sql) {
        List<String> out = new ArrayList<>();
        for (String q : sql) {
            if (q.strip().toUpperCase(Locale.ROOT).startsWith("INSERT")) {
                continue;
            }
            boolean names = generated.entrySet().stream().anyMatch(e -> {
                List<String> cols = columns.getOrDefault(e.getKey(), List.of());
                return Pattern.compile("(?i)\\b" + Pattern.quote(e.getKey()) + "\\b").matcher(q).find()
                        && e.getValue().stream().filter(i -> i < cols.size())
                        .anyMatch(i -> Pattern.compile("(?i)(?<![\\w'])" + Pattern.quote(cols.get(i)) + "\\b").matcher(q).find());
            });
            if (names) {
                out.add(q);
            }
        }
        return out;
    }

    private static String label(Map<String, Map<Integer, Map<String, String>>> labels, String table, int column, String value) {
        if (value == null) {
            return null;
        }
        String l = labels.getOrDefault(table, Map.of()).getOrDefault(column, Map.of()).get(value);
        return l != null ? l : "#dangling:" + value; // a reference to a key no row holds: kept, so it still differs
    }

    private static int compareRows(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Comparator.nullsFirst(Comparator.<String>naturalOrder()).compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /** An identifier as the case's {@code tables} list and the DDL may spell it: unquoted, lower case, schema dropped. */
    static String name(String identifier) {
        String n = identifier.strip().replaceAll("[\"`\\[\\]]", "");
        int dot = n.lastIndexOf('.');
        return (dot >= 0 ? n.substring(dot + 1) : n).toLowerCase(Locale.ROOT);
    }

    /** A column list split at commas outside parentheses and quotes. */
    private static List<String> splitTopLevel(String body) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        char quote = 0;
        StringBuilder cur = new StringBuilder();
        for (char ch : body.toCharArray()) {
            if (quote != 0) {
                if (ch == quote) {
                    quote = 0;
                }
            } else if (ch == '\'' || ch == '"' || ch == '`') {
                quote = ch;
            } else if (ch == '(') {
                depth++;
            } else if (ch == ')') {
                depth--;
            } else if (ch == ',' && depth == 0) {
                out.add(cur.toString());
                cur.setLength(0);
                continue;
            }
            cur.append(ch);
        }
        out.add(cur.toString());
        return out;
    }
}
