package txfuzz.imports;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import net.sf.jsqlparser.statement.DescribeStatement;
import net.sf.jsqlparser.statement.ExplainStatement;
import net.sf.jsqlparser.statement.ShowColumnsStatement;
import net.sf.jsqlparser.statement.ShowStatement;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.show.ShowIndexStatement;
import net.sf.jsqlparser.statement.show.ShowTablesStatement;
import net.sf.jsqlparser.util.TablesNamesFinder;

/**
 * What an imported statement that is no query or write of the case's tables is, as far as the oracles need to know:
 * a session setting ({@code SET}, {@code PRAGMA}) or an inspection ({@code EXPLAIN} without ANALYZE, {@code SHOW},
 * {@code DESCRIBE}, a query of the system catalog) changes no row of the case, so it runs at its step and the case's
 * row tracking stays complete; anything else the case cannot track ({@code REFRESH MATERIALIZED VIEW}, DDL, a call of
 * a function) runs at its step too, and only the oracles that need no row tracking judge the case.
 */
public final class ForeignStatement {
    private ForeignStatement() {
    }

    /** The roles of a statement the importer keeps as it is ({@link txfuzz.model.StmtKind#OTHER}). */
    public enum Role {
        /** Changes a setting of its session or transaction, no row. */
        SETTING,
        /** Reads the engine's description of something (a plan, a setting, the catalog), no row of the case: reported, not judged. */
        INSPECTION,
        /** Reads or writes what row tracking cannot follow. */
        UNTRACKABLE
    }

    /** Words that start a setting on some engine; the parser reads some of them, PRAGMA (SQLite) not at all. */
    private static final List<String> SETTING_WORDS = List.of("SET", "PRAGMA", "RESET");
    private static final List<String> INSPECTION_WORDS = List.of("SHOW", "DESCRIBE", "DESC");
    /** An EXPLAIN whose options run the statement (PostgreSQL's ANALYZE / ANALYSE, MySQL's EXPLAIN ANALYZE). */
    private static final Pattern EXPLAIN_RUNS = Pattern.compile("^EXPLAIN\\s+(\\([^)]*\\bANALY[SZ]E\\b[^)]*\\)|ANALY[SZ]E\\b)", Pattern.CASE_INSENSITIVE);
    /** The system catalogs of the engines txfuzz runs: a query of one alone reads no row of the case. */
    private static final Pattern CATALOG = Pattern.compile(
            "^(pg_catalog\\.|pg_\\w+$|information_schema\\.|performance_schema\\.|mysql\\.|sys\\.|sqlite_(master|schema|temp_master)$|duckdb_\\w+$)",
            Pattern.CASE_INSENSITIVE);

    private static final Pattern SELECT_WORD = Pattern.compile("\\bSELECT\\b", Pattern.CASE_INSENSITIVE);

    /** The role of {@code sql}, a statement the importer does not read as a query, a write or transaction control. */
    public static Role of(String sql) {
        String flat = SqlText.withoutComments(sql);
        List<String> w = SqlText.words(flat, 1);
        String first = w.isEmpty() ? "" : w.get(0);
        if (SETTING_WORDS.contains(first)) { // a SET that takes its value from a query reads rows
            return SELECT_WORD.matcher(flat).find() ? Role.UNTRACKABLE : Role.SETTING;
        }
        if (first.equals("EXPLAIN")) {
            return EXPLAIN_RUNS.matcher(flat).find() ? Role.UNTRACKABLE : Role.INSPECTION;
        }
        Optional<Statement> parsed = parse(flat);
        if (parsed.isPresent()) {
            Statement st = parsed.get();
            if (st instanceof ExplainStatement e) {
                return e.getOption(ExplainStatement.OptionType.ANALYZE) != null ? Role.UNTRACKABLE : Role.INSPECTION;
            }
            if (st instanceof ShowStatement || st instanceof ShowColumnsStatement || st instanceof ShowTablesStatement
                    || st instanceof ShowIndexStatement || st instanceof DescribeStatement) {
                return Role.INSPECTION;
            }
            if (st instanceof Select s && readsOnlyCatalog(s)) {
                return Role.INSPECTION;
            }
        }
        return INSPECTION_WORDS.contains(first) ? Role.INSPECTION : Role.UNTRACKABLE;
    }

    /** Whether {@code sql} changes no row of any table: a setting or an inspection. */
    public static boolean changesNoRow(String sql) {
        return of(sql) != Role.UNTRACKABLE;
    }

    /** Whether {@code sql} is a query of the system catalog alone (no table of the case, no function that might write). */
    static boolean isCatalogQuery(String sql) {
        return parse(SqlText.withoutComments(sql)).filter(st -> st instanceof Select s && readsOnlyCatalog(s)).isPresent();
    }

    private static boolean readsOnlyCatalog(Select s) {
        try {
            var tables = new TablesNamesFinder<Void>().getTables((Statement) s);
            return !tables.isEmpty() && tables.stream().allMatch(t -> CATALOG.matcher(t.replace("\"", "").toLowerCase(Locale.ROOT)).find());
        } catch (RuntimeException unsupported) { // the finder does not visit every form the parser reads
            return false;
        }
    }

    private static Optional<Statement> parse(String sql) {
        try {
            return Optional.ofNullable(net.sf.jsqlparser.parser.CCJSqlParserUtil.parse(sql));
        } catch (Exception | StackOverflowError unread) {
            return Optional.empty();
        }
    }
}
