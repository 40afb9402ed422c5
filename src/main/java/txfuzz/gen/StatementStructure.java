package txfuzz.gen;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.alter.Alter;
import net.sf.jsqlparser.statement.alter.AlterExpression;
import net.sf.jsqlparser.statement.alter.AlterOperation;
import net.sf.jsqlparser.statement.create.index.CreateIndex;
import net.sf.jsqlparser.statement.create.table.CheckConstraint;
import net.sf.jsqlparser.statement.create.table.ColDataType;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.create.table.ForeignKeyIndex;
import net.sf.jsqlparser.statement.create.table.Index;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.ConflictActionType;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.ForMode;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.upsert.Upsert;

/**
 * What a statement is, read from its parsed form (JSqlParser 5.3, the parser {@link ForeignInstrumentation}
 * uses): its kind, the table it writes, the table it defines (columns, generated keys, references) and,
 * for a query on one table, its select list. One place for the statement structure the oracles, the
 * reducer and the reports need, instead of each reading it back from the text with its own regular
 * expressions.
 *
 * <p>{@link #of} is empty for a statement the parser does not read (a dialect's form JSqlParser lacks,
 * e.g. MariaDB's {@code LOCK IN SHARE MODE SKIP LOCKED}, H2's {@code MERGE INTO … KEY}, Derby's {@code FOR
 * READ ONLY WITH RS}): each caller then keeps its own reading of the text for it, never a guess.
 *
 * <p>A statement is parsed once per text (a bounded cache shared by every caller and worker thread): the
 * signature, the wss oracle and the deviation explainer ask about the same statements of a case.
 */
public final class StatementStructure {
    private static final String LOCK_IN_SHARE_MODE = "LOCK IN SHARE MODE";
    private static final int CACHE_SIZE = 8192;
    private static final Map<String, Optional<Parsed>> CACHE = Collections.synchronizedMap(new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Optional<Parsed>> eldest) {
            return size() > CACHE_SIZE;
        }
    });

    private StatementStructure() {
    }

    /**
     * One parsed statement.
     *
     * @param kind         the statement kind as signatures and listings name it: {@code SELECT}, {@code SELECT FOR UPDATE},
     *                     {@code SELECT FOR SHARE}, {@code INSERT}, {@code INSERT SELECT}, {@code INSERT ON CONFLICT DO UPDATE},
     *                     {@code INSERT OR REPLACE}, {@code REPLACE}, {@code MERGE}, {@code UPDATE}, {@code DELETE} …; for any
     *                     other statement its first word, upper case ({@code CREATE}, {@code COMMIT})
     * @param writtenTable the table an INSERT, UPDATE, DELETE, MERGE or upsert writes: unquoted, lower case, schema dropped
     * @param definition   what a CREATE TABLE, or an ALTER TABLE … ADD column, declares
     * @param query        the FROM table and select list of a query on one table (the first branch of a compound one)
     * @param declares     the constraints and indexes a CREATE TABLE or CREATE INDEX declares, of {@code PRIMARY KEY},
     *                     {@code UNIQUE}, {@code FOREIGN KEY}, {@code CHECK}, {@code index} (sorted)
     */
    public record Parsed(String kind, Optional<String> writtenTable, Optional<TableDefinition> definition, Optional<OneTableQuery> query,
                         List<String> declares) {
        public Parsed {
            declares = List.copyOf(new java.util.TreeSet<>(declares));
        }
    }

    /**
     * The columns a CREATE TABLE declares (or an ALTER TABLE adds), in declaration order.
     *
     * @param creates     true for CREATE TABLE (the table's columns start here), false for ALTER TABLE … ADD
     * @param foreignKeys table-level single-column FOREIGN KEY constraints
     */
    public record TableDefinition(String table, boolean creates, List<ColumnDeclaration> columns, List<ForeignKey> foreignKeys) {
        public TableDefinition {
            columns = List.copyOf(columns);
            foreignKeys = List.copyOf(foreignKeys);
        }
    }

    /**
     * One declared column.
     *
     * @param generated         the engine generates its value: AUTO_INCREMENT/AUTOINCREMENT, SERIAL (SMALL/BIG, 2/4/8),
     *                          IDENTITY, a DEFAULT nextval(…)
     * @param integerPrimaryKey declared {@code INTEGER PRIMARY KEY} (a row id in SQLite)
     * @param references        the inline REFERENCES of the column, if any
     */
    public record ColumnDeclaration(String name, boolean generated, boolean integerPrimaryKey, Optional<Reference> references) {
    }

    /** A referenced table, and its column when one is named. */
    public record Reference(String table, Optional<String> column) {
    }

    /** A table-level FOREIGN KEY ({@code column}) REFERENCES {@code references}. */
    public record ForeignKey(String column, Reference references) {
    }

    /**
     * A query's FROM table and its select list: per item the column it reads (unqualified, lower case) when it is
     * a column or an expression of that one column, whose value follows the column's ({@code (id * 2)},
     * {@code COALESCE(id, 0)}, {@code MAX(id)}); {@code *} for {@code *} or {@code t.*}; empty for a literal, an
     * expression of several columns or one with a subquery.
     */
    public record OneTableQuery(String table, List<Optional<String>> items) {
        public OneTableQuery {
            items = List.copyOf(items);
        }
    }

    /** The parsed structure of {@code sql}; empty when the parser does not read it (the caller keeps its text reading). */
    public static Optional<Parsed> of(String sql) {
        Optional<Parsed> hit = CACHE.get(sql);
        if (hit != null) {
            return hit;
        }
        Optional<Parsed> p = derive(sql);
        CACHE.put(sql, p);
        return p;
    }

    /**
     * A statement's kind and written table where its words alone settle them, as {@link #of} would give them.
     *
     * @param kind         as {@link Parsed#kind}
     * @param writtenTable as {@link Parsed#writtenTable}
     */
    public record Head(String kind, Optional<String> writtenTable) {
    }

    /** Words that may follow UPDATE, DELETE FROM or INSERT INTO in some dialect and are no table's name. */
    private static final java.util.Set<String> MODIFIERS = java.util.Set.of("ONLY", "LOW_PRIORITY", "HIGH_PRIORITY", "DELAYED", "QUICK",
            "IGNORE", "TOP", "OR", "INTO", "FROM", "SET", "WHERE", "VALUES", "DEFAULT", "SELECT", "WITH", "AS", "USING", "KEY", "ON");

    /**
     * The kind and written table of the most common statements, read from their words without a parse (a parse costs
     * about a millisecond): a {@code SELECT} with no {@code FOR} or {@code LOCK} word or one that ends {@code FOR UPDATE}
     * or {@code FOR SHARE} ({@link #selectKind}), {@code MERGE INTO t … USING} and H2's {@code MERGE INTO t … KEY},
     * {@code UPDATE t [alias] SET},
     * {@code DELETE FROM t [alias] [WHERE]}, {@code INSERT INTO t [(columns)] VALUES} (no {@code SELECT} word) or
     * {@code … SELECT}, with no {@code ON} or {@code WITH} word. These forms have one reading in every dialect; any other form, or a word this reading does not
     * know where the table's name should be, is empty: ask {@link #of}. Words inside strings, quoted names and comments
     * do not count.
     */
    public static Optional<Head> head(String sql) {
        List<String> w = words(sql);
        if (w == null || w.isEmpty()) {
            return Optional.empty();
        }
        switch (w.get(0)) {
            case "SELECT":
                return selectKind(w).map(kind -> new Head(kind, Optional.empty()));
            case "MERGE": {
                // MERGE … USING is the parser's MERGE; H2's MERGE INTO t KEY (…) the parser does not read, and its text names it MERGE KEY
                int after = w.size() > 1 && w.get(1).equals("INTO") ? afterName(w, 2) : -1;
                if (after < 0 || after >= w.size()) {
                    return Optional.empty();
                }
                String kind = w.contains("USING") ? "MERGE" : w.contains("KEY") && !w.contains("SELECT") ? "MERGE KEY" : null;
                return kind == null ? Optional.empty() : Optional.of(new Head(kind, Optional.of(name(w.get(after - 1)))));
            }
            case "UPDATE": {
                int after = afterName(w, 1);
                return after > 0 && endsTableReference(w, after, "SET") ? Optional.of(new Head("UPDATE", Optional.of(name(w.get(after - 1))))) : Optional.empty();
            }
            case "DELETE": {
                if (w.size() < 2 || !w.get(1).equals("FROM")) {
                    return Optional.empty();
                }
                int after = afterName(w, 2);
                return after > 0 && endsTableReference(w, after, "WHERE") ? Optional.of(new Head("DELETE", Optional.of(name(w.get(after - 1))))) : Optional.empty();
            }
            case "INSERT": {
                if (w.size() < 2 || !w.get(1).equals("INTO") || w.contains("ON") || w.contains("WITH")) {
                    return Optional.empty();
                }
                int after = afterName(w, 2);
                if (after < 0 || after >= w.size()) {
                    return Optional.empty();
                }
                int rows = after;
                if (w.get(after).equals("(")) {
                    rows = closing(w, after) + 1;
                }
                if (rows <= 0 || rows >= w.size()) {
                    return Optional.empty();
                }
                // INSERT … VALUES with no query anywhere, or INSERT … SELECT: the parser's Insert of values or of a query
                String kind = w.get(rows).equals("VALUES") && !w.contains("SELECT") ? "INSERT" : w.get(rows).equals("SELECT") ? "INSERT SELECT" : null;
                return kind == null ? Optional.empty() : Optional.of(new Head(kind, Optional.of(name(w.get(after - 1)))));
            }
            default:
                return Optional.empty();
        }
    }

    /**
     * The kind of a query: {@code SELECT} with no {@code FOR} or {@code LOCK} word; {@code SELECT FOR UPDATE} or
     * {@code SELECT FOR SHARE} when its one {@code FOR} word ends a query on no set operation, outside parentheses, as
     * {@code FOR UPDATE} or {@code FOR SHARE} (then {@code NOWAIT} or {@code SKIP LOCKED} at most). Empty otherwise.
     */
    private static Optional<String> selectKind(List<String> w) {
        if (w.contains("LOCK")) {
            return Optional.empty();
        }
        int at = w.indexOf("FOR");
        if (at < 0) {
            return Optional.of("SELECT");
        }
        if (w.lastIndexOf("FOR") != at || w.contains("UNION") || w.contains("INTERSECT") || w.contains("EXCEPT") || w.contains("MINUS")
                || depth(w, at) != 0 || at + 1 >= w.size()) {
            return Optional.empty();
        }
        List<String> tail = w.subList(at + 2, w.size());
        if (!tail.isEmpty() && !tail.equals(List.of("NOWAIT")) && !tail.equals(List.of("SKIP", "LOCKED"))) {
            return Optional.empty();
        }
        return switch (w.get(at + 1)) {
            case "UPDATE" -> Optional.of("SELECT FOR UPDATE");
            case "SHARE" -> Optional.of("SELECT FOR SHARE");
            default -> Optional.empty();
        };
    }

    /** How many parentheses are open before word {@code at}. */
    private static int depth(List<String> w, int at) {
        int depth = 0;
        for (int i = 0; i < at; i++) {
            depth += w.get(i).equals("(") ? 1 : w.get(i).equals(")") ? -1 : 0;
        }
        return depth;
    }

    /**
     * What a {@code CREATE TABLE t (…)} or {@code CREATE [UNIQUE] INDEX} declares, as {@link Parsed#declares}, read from
     * its words without a parse: {@code PRIMARY KEY}, {@code UNIQUE}, {@code FOREIGN KEY} (a {@code REFERENCES}),
     * {@code CHECK}, {@code index}. Empty for any other statement, or a table made from a query: ask {@link #of}.
     */
    public static Optional<List<String>> declared(String sql) {
        List<String> w = words(sql);
        if (w == null || w.size() < 3 || !w.get(0).equals("CREATE")) {
            return Optional.empty();
        }
        if (w.get(1).equals("INDEX") || w.get(1).equals("UNIQUE") && w.get(2).equals("INDEX")) {
            return Optional.of(w.get(1).equals("UNIQUE") ? List.of("UNIQUE", "index") : List.of("index"));
        }
        if (!w.get(1).equals("TABLE") || w.contains("SELECT")) {
            return Optional.empty();
        }
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (int i = 0; i < w.size(); i++) {
            switch (w.get(i)) {
                case "PRIMARY" -> {
                    if (i + 1 < w.size() && w.get(i + 1).equals("KEY")) {
                        out.add("PRIMARY KEY");
                    }
                }
                case "UNIQUE" -> out.add("UNIQUE");
                case "REFERENCES" -> out.add("FOREIGN KEY");
                case "CHECK" -> out.add("CHECK");
                default -> {
                }
            }
        }
        return Optional.of(List.copyOf(out));
    }

    /**
     * The index after a table name that starts at {@code at} (a word or quoted name, qualified by others with dots);
     * -1 when there is none. The name's parts stay separate words: {@link #name} keeps the last part.
     */
    private static int afterName(List<String> w, int at) {
        int i = at;
        while (true) {
            if (i >= w.size() || !isName(w.get(i))) {
                return -1;
            }
            i++;
            if (i < w.size() && w.get(i).equals(".")) {
                i++;
                continue;
            }
            return i;
        }
    }

    private static boolean isName(String word) {
        char c = word.charAt(0);
        return c == '"' || c == '`' || c == '[' || (Character.isLetter(c) || c == '_') && !MODIFIERS.contains(word);
    }

    /** Whether the table reference ends at {@code i}: then {@code next} or the end of the text, or an alias (AS optional) and then it. */
    private static boolean endsTableReference(List<String> w, int i, String next) {
        if (i < w.size() && w.get(i).equals("AS")) {
            i++;
            if (i >= w.size() || !isName(w.get(i))) {
                return false;
            }
        }
        if (i < w.size() && isName(w.get(i))) {
            i++; // an alias
        }
        return i >= w.size() ? next.equals("WHERE") : w.get(i).equals(next);
    }

    private static int closing(List<String> w, int open) {
        int depth = 0;
        for (int i = open; i < w.size(); i++) {
            if (w.get(i).equals("(")) {
                depth++;
            } else if (w.get(i).equals(")") && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The words of {@code sql}: names and keywords upper case, quoted names as written, every other character but
     * white space a word of its own; strings, numbers and comments left out. Null for a text this scan does not read
     * for sure (an unterminated string, quoted name or comment; a backslash, which some dialects read as an escape in
     * strings; a {@code $}, PostgreSQL's dollar quotes).
     */
    static List<String> words(String sql) {
        if (sql.indexOf('\\') >= 0 || sql.indexOf('$') >= 0) {
            return null;
        }
        List<String> out = new ArrayList<>();
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char ch = sql.charAt(i);
            if (Character.isWhitespace(ch) || ch == ';' && sql.substring(i + 1).isBlank()) {
                i++;
            } else if (ch == '\'') {
                int end = i + 1;
                while (end < n && (sql.charAt(end) != '\'' || end + 1 < n && sql.charAt(end + 1) == '\'' && ++end > 0)) {
                    end++;
                }
                if (end >= n) {
                    return null;
                }
                i = end + 1;
            } else if (ch == '"' || ch == '`' || ch == '[') {
                int end = sql.indexOf(ch == '[' ? ']' : ch, i + 1);
                if (end < 0) {
                    return null;
                }
                out.add(sql.substring(i, end + 1));
                i = end + 1;
            } else if (ch == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end;
            } else if (ch == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) {
                    return null;
                }
                i = end + 2;
            } else if (Character.isLetter(ch) || ch == '_') {
                int end = i;
                while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
                    end++;
                }
                out.add(sql.substring(i, end).toUpperCase(Locale.ROOT));
                i = end;
            } else if (Character.isDigit(ch)) {
                int end = i;
                while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '.' || sql.charAt(end) == '_')) {
                    end++;
                }
                i = end;
            } else {
                out.add(String.valueOf(ch));
                i++;
            }
        }
        return out;
    }

    private static Optional<Parsed> derive(String original) {
        String sql = original.strip();
        if (sql.endsWith(";")) {
            sql = sql.substring(0, sql.length() - 1).strip();
        }
        boolean lockInShareMode = false;
        if (sql.toUpperCase(Locale.ROOT).endsWith(" " + LOCK_IN_SHARE_MODE)) {
            // JSqlParser 5.3 does not read MariaDB's spelling of FOR SHARE (as in ForeignInstrumentation)
            sql = sql.substring(0, sql.length() - LOCK_IN_SHARE_MODE.length()).strip();
            lockInShareMode = true;
        }
        Statement st = parse(sql);
        if (st == null) {
            return Optional.empty();
        }
        if (lockInShareMode && !(st instanceof PlainSelect || st instanceof SetOperationList)) {
            return Optional.empty(); // not a query the suffix could lock: leave it to the caller's reading of the text
        }
        return Optional.of(new Parsed(kind(st, lockInShareMode, sql), written(st), definition(st), query(st), declares(st)));
    }

    /** The parser's deepest nesting it tries its complex mode on (as {@code CCJSqlParserUtil.parse} does). */
    private static final int COMPLEX_PARSING_DEPTH = 10;

    /**
     * {@code sql} parsed in the calling thread: the simple mode first, the complex mode when that fails, as
     * {@code CCJSqlParserUtil.parse(String)} does; but that one starts a thread per statement (to time the parse out),
     * which cost more than the parse itself. Null when neither mode reads it.
     */
    public static Statement parse(String sql) {
        try {
            return parseOrThrow(sql);
        } catch (JSQLParserException unread) {
            return null;
        }
    }

    /**
     * {@link #parse}, failing as {@code CCJSqlParserUtil.parse(String)} fails (the same exception around the same
     * cause, so a reason quoted from it reads the same) for callers that say why a statement was not read; null for
     * no text, as the library gives.
     */
    public static Statement parseOrThrow(String sql) throws JSQLParserException {
        if (sql == null || sql.isEmpty()) {
            return null;
        }
        try {
            return CCJSqlParserUtil.newParser(sql).withAllowComplexParsing(false).Statement();
        } catch (Exception | StackOverflowError simple) {
            if (CCJSqlParserUtil.getNestingDepth(sql) > COMPLEX_PARSING_DEPTH) {
                throw new JSQLParserException(simple);
            }
            try {
                return CCJSqlParserUtil.newParser(sql).withAllowComplexParsing(true).Statement();
            } catch (Exception | StackOverflowError complex) {
                throw new JSQLParserException(complex);
            }
        }
    }

    // ---------------------------------------------------------------- kind

    private static String kind(Statement st, boolean lockInShareMode, String sql) {
        if (st instanceof Select s && !(st instanceof Values)) {
            if (lockInShareMode) {
                return "SELECT FOR SHARE";
            }
            ForMode mode = forMode(s);
            // FOR NO KEY UPDATE and FOR KEY SHARE stay plain SELECTs, as signatures have always named them
            if (mode == ForMode.UPDATE) {
                return "SELECT FOR UPDATE";
            }
            return mode == ForMode.SHARE ? "SELECT FOR SHARE" : "SELECT";
        }
        if (st instanceof Upsert u) {
            return switch (u.getUpsertType()) {
                case INSERT_OR_REPLACE -> "INSERT OR REPLACE";
                case INSERT_OR_IGNORE -> "INSERT OR IGNORE";
                case REPLACE, REPLACE_SET -> "REPLACE";
                case UPSERT -> "UPSERT";
                default -> "INSERT"; // INSERT OR ABORT/FAIL/ROLLBACK: SQLite's plain INSERT with another conflict rule
            };
        }
        if (st instanceof Insert i) {
            if (i.isModifierIgnore()) {
                return "INSERT IGNORE";
            }
            if (i.getConflictAction() != null) {
                return i.getConflictAction().getConflictActionType() == ConflictActionType.DO_NOTHING
                        ? "INSERT ON CONFLICT DO NOTHING" : "INSERT ON CONFLICT DO UPDATE";
            }
            if (i.getDuplicateUpdateSets() != null && !i.getDuplicateUpdateSets().isEmpty()) {
                return "INSERT ON DUPLICATE KEY UPDATE";
            }
            return i.getSelect() != null && !(i.getSelect() instanceof Values) ? "INSERT SELECT" : "INSERT";
        }
        if (st instanceof Merge) {
            return "MERGE"; // the parser reads MERGE … USING only (H2's MERGE INTO … KEY is read from the text)
        }
        if (st instanceof Update) {
            return "UPDATE";
        }
        if (st instanceof Delete) {
            return "DELETE";
        }
        String upper = sql.toUpperCase(Locale.ROOT);
        int end = 0;
        while (end < upper.length() && !Character.isWhitespace(upper.charAt(end))) {
            end++;
        }
        return upper.substring(0, end);
    }

    /** The lock a query takes: its own, or for a compound query any branch's. */
    private static ForMode forMode(Select s) {
        if (s.getForMode() != null) {
            return s.getForMode();
        }
        if (s instanceof SetOperationList list) {
            for (Select branch : list.getSelects()) {
                ForMode m = forMode(branch);
                if (m != null) {
                    return m;
                }
            }
        }
        if (s instanceof ParenthesedSelect p && p.getSelect() != null) {
            return forMode(p.getSelect());
        }
        return null;
    }

    // ---------------------------------------------------------------- written table

    private static Optional<String> written(Statement st) {
        Table t = null;
        if (st instanceof Insert i) {
            t = i.getTable();
        } else if (st instanceof Upsert u) {
            t = u.getTable();
        } else if (st instanceof Update u) {
            t = u.getTable();
        } else if (st instanceof Delete d) {
            t = d.getTable();
        } else if (st instanceof Merge m) {
            t = m.getTable();
        }
        return t == null || t.getName() == null ? Optional.empty() : Optional.of(name(t.getName()));
    }

    // ---------------------------------------------------------------- definitions

    private static Optional<TableDefinition> definition(Statement st) {
        if (st instanceof CreateTable ct) {
            if (ct.getColumnDefinitions() == null || ct.getColumnDefinitions().isEmpty()) {
                return Optional.empty(); // a table made from a query: its columns are not in the statement
            }
            List<ColumnDeclaration> cols = new ArrayList<>();
            for (ColumnDefinition c : ct.getColumnDefinitions()) {
                cols.add(column(c.getColumnName(), c.getColDataType(), c.getColumnSpecs()));
            }
            List<ForeignKey> fks = new ArrayList<>();
            if (ct.getIndexes() != null) {
                for (Index ix : ct.getIndexes()) {
                    if (ix instanceof ForeignKeyIndex fk && fk.getColumnsNames().size() == 1 && fk.getTable() != null) {
                        List<String> refCols = fk.getReferencedColumnNames();
                        Optional<String> refCol = refCols != null && refCols.size() == 1 ? Optional.of(name(refCols.get(0))) : Optional.empty();
                        fks.add(new ForeignKey(name(fk.getColumnsNames().get(0)), new Reference(name(fk.getTable().getName()), refCol)));
                    }
                }
            }
            return Optional.of(new TableDefinition(name(ct.getTable().getName()), true, cols, fks));
        }
        if (st instanceof Alter a && a.getAlterExpressions() != null) {
            List<ColumnDeclaration> cols = new ArrayList<>();
            for (AlterExpression e : a.getAlterExpressions()) {
                if (e.getOperation() == AlterOperation.ADD && e.getColDataTypeList() != null) {
                    for (AlterExpression.ColumnDataType c : e.getColDataTypeList()) {
                        cols.add(column(c.getColumnName(), c.getColDataType(), c.getColumnSpecs()));
                    }
                }
            }
            return cols.isEmpty() ? Optional.empty() : Optional.of(new TableDefinition(name(a.getTable().getName()), false, cols, List.of()));
        }
        return Optional.empty();
    }

    /** PostgreSQL's serial types (SMALL/BIG, 2/4/8) and H2's IDENTITY type. */
    private static final java.util.Set<String> GENERATING_TYPES = java.util.Set.of("SERIAL", "SERIAL2", "SERIAL4", "SERIAL8",
            "SMALLSERIAL", "SMALLSERIAL2", "SMALLSERIAL4", "SMALLSERIAL8", "BIGSERIAL", "BIGSERIAL2", "BIGSERIAL4", "BIGSERIAL8", "IDENTITY");

    private static ColumnDeclaration column(String name, ColDataType type, List<String> specs) {
        List<String> words = specs == null ? List.of() : specs;
        String typeName = type == null || type.getDataType() == null ? "" : type.getDataType().toUpperCase(Locale.ROOT);
        boolean generated = GENERATING_TYPES.contains(typeName);
        for (String w : words) {
            String u = w.toUpperCase(Locale.ROOT).replace(" ", "");
            generated |= u.equals("AUTO_INCREMENT") || u.equals("AUTOINCREMENT") || u.equals("IDENTITY") || u.startsWith("NEXTVAL(");
        }
        boolean integerPrimaryKey = typeName.equals("INTEGER") && (type.getArgumentsStringList() == null || type.getArgumentsStringList().isEmpty())
                && words.size() >= 2 && words.get(0).equalsIgnoreCase("PRIMARY") && words.get(1).equalsIgnoreCase("KEY");
        Optional<Reference> ref = Optional.empty();
        for (int i = 0; i + 1 < words.size(); i++) {
            if (words.get(i).equalsIgnoreCase("REFERENCES")) {
                String next = i + 2 < words.size() ? words.get(i + 2).strip() : "";
                Optional<String> refCol = Optional.empty();
                if (next.startsWith("(") && next.endsWith(")") && !next.contains(",")) {
                    refCol = Optional.of(name(next.substring(1, next.length() - 1)));
                }
                ref = Optional.of(new Reference(name(words.get(i + 1)), refCol));
                break;
            }
        }
        return new ColumnDeclaration(name(name), generated, integerPrimaryKey, ref);
    }

    private static List<String> declares(Statement st) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        if (st instanceof CreateIndex ci) {
            out.add("index");
            if (ci.getIndex() != null && ci.getIndex().getType() != null && ci.getIndex().getType().toUpperCase(Locale.ROOT).startsWith("UNIQUE")) {
                out.add("UNIQUE");
            }
        }
        if (st instanceof CreateTable ct) {
            if (ct.getColumnDefinitions() != null) {
                for (ColumnDefinition c : ct.getColumnDefinitions()) {
                    List<String> words = c.getColumnSpecs() == null ? List.of() : c.getColumnSpecs();
                    for (int i = 0; i < words.size(); i++) {
                        String w = words.get(i).toUpperCase(Locale.ROOT);
                        if (w.equals("PRIMARY") && i + 1 < words.size() && words.get(i + 1).equalsIgnoreCase("KEY")) {
                            out.add("PRIMARY KEY");
                        } else if (w.equals("UNIQUE")) {
                            out.add("UNIQUE");
                        } else if (w.equals("REFERENCES")) {
                            out.add("FOREIGN KEY");
                        } else if (w.equals("CHECK")) {
                            out.add("CHECK");
                        }
                    }
                }
            }
            if (ct.getIndexes() != null) {
                for (Index ix : ct.getIndexes()) {
                    String type = ix.getType() == null ? "" : ix.getType().toUpperCase(Locale.ROOT);
                    if (ix instanceof ForeignKeyIndex) {
                        out.add("FOREIGN KEY");
                    } else if (ix instanceof CheckConstraint) {
                        out.add("CHECK");
                    } else if (type.contains("PRIMARY KEY")) {
                        out.add("PRIMARY KEY");
                    } else if (type.startsWith("UNIQUE")) {
                        out.add("UNIQUE");
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    // ---------------------------------------------------------------- one-table query

    private static Optional<OneTableQuery> query(Statement st) {
        Select s = st instanceof Select sel ? sel : null;
        while (s instanceof SetOperationList list && !list.getSelects().isEmpty()) {
            s = list.getSelects().get(0);
        }
        if (!(s instanceof PlainSelect ps) || !(ps.getFromItem() instanceof Table from) || ps.getSelectItems() == null) {
            return Optional.empty();
        }
        List<Optional<String>> items = new ArrayList<>();
        for (SelectItem<?> item : ps.getSelectItems()) {
            Object e = item.getExpression();
            if (e instanceof AllColumns) { // also t.* (AllTableColumns is an AllColumns)
                items.add(Optional.of("*"));
            } else if (e instanceof Column c) {
                items.add(Optional.of(name(c.getColumnName())));
            } else if (e instanceof Expression x) {
                items.add(onlyColumn(x));
            } else {
                items.add(Optional.empty());
            }
        }
        return Optional.of(new OneTableQuery(name(from.getName()), items));
    }

    /** The one column (by name) {@code e} reads outside subqueries; empty when it reads none, several, or has a subquery. */
    private static Optional<String> onlyColumn(Expression e) {
        java.util.Set<String> names = new java.util.TreeSet<>();
        boolean[] subquery = {false};
        e.accept(new ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Column column, S context) {
                names.add(name(column.getColumnName()));
                return null;
            }

            @Override
            public <S> Void visit(ParenthesedSelect select, S context) {
                subquery[0] = true;
                return null;
            }

            @Override
            public <S> Void visit(Select select, S context) {
                subquery[0] = true;
                return null;
            }
        }, null);
        return !subquery[0] && names.size() == 1 ? Optional.of(names.iterator().next()) : Optional.empty();
    }

    /** An identifier compared as the case's table list spells it: unquoted, lower case, schema dropped. */
    public static String name(String identifier) {
        String n = identifier.strip();
        int dot = n.lastIndexOf('.');
        n = dot >= 0 ? n.substring(dot + 1) : n;
        if (n.length() >= 2 && (n.startsWith("\"") && n.endsWith("\"") || n.startsWith("`") && n.endsWith("`")
                || n.startsWith("[") && n.endsWith("]"))) {
            n = n.substring(1, n.length() - 1);
        }
        return n.toLowerCase(Locale.ROOT);
    }
}
