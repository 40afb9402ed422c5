package txfuzz.oracle.wss;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.dbms.Engine;
import txfuzz.model.DbState;

/**
 * The view of a write under {@link txfuzz.dbms.Deviation#LOCKING_SCAN_IN_KEY_ORDER}: a locking scan that
 * walks its table in the order of its clustered key (the PRIMARY KEY, or the UNIQUE NOT NULL index InnoDB
 * clusters a table without one by) and waited on the row with key {@code K} read the rows ordered
 * before {@code K} as they were when it was submitted, and {@code K} and the rows after it as they were
 * when it resumed (newest committed). Keys are compared by their SQL type; where the order of two keys
 * is not certain (character keys whose order may depend on the column's collation), the split is unknown
 * and the rule is not applied.
 */
final class KeyOrderScan {
    /** A single-table UPDATE or DELETE: its target table and the name the plan shows it by (its alias, if any). */
    record Target(String table, String name) {
    }

    private static final Pattern SINGLE_TABLE_WRITE = Pattern.compile(
            "^\\s*(UPDATE|DELETE\\s+FROM)\\s+(\\w+)(?:\\s+(?:AS\\s+)?(\\w+))?\\s+(SET|WHERE)\\b|^\\s*(DELETE\\s+FROM)\\s+(\\w+)\\s*$",
            Pattern.CASE_INSENSITIVE);
    /** Clauses that change the scan's order or length. */
    private static final Pattern ORDERED = Pattern.compile("\\b(ORDER\\s+BY|LIMIT)\\b", Pattern.CASE_INSENSITIVE);

    private KeyOrderScan() {
    }

    /** The target of {@code sql} if it is a single-table UPDATE or DELETE without ORDER BY or LIMIT. */
    static Optional<Target> target(String sql) {
        if (ORDERED.matcher(sql).find()) {
            return Optional.empty();
        }
        Matcher m = SINGLE_TABLE_WRITE.matcher(sql);
        if (!m.find()) {
            return Optional.empty();
        }
        if (m.group(5) != null) {
            return Optional.of(new Target(m.group(6), m.group(6)));
        }
        String verb = m.group(1).toUpperCase(Locale.ROOT);
        String clause = m.group(4).toUpperCase(Locale.ROOT);
        if (verb.startsWith("UPDATE") != clause.equals("SET")) {
            return Optional.empty();
        }
        String alias = m.group(3);
        boolean aliasIsKeyword = alias != null && Set.of("SET", "WHERE").contains(alias.toUpperCase(Locale.ROOT));
        return Optional.of(new Target(m.group(2), alias == null || aliasIsKeyword ? m.group(2) : alias));
    }

    /**
     * {@code sql}, a {@code SELECT … FROM table [alias] [WHERE …] [ORDER BY …]} of one table that locks the rows it returns
     * ({@code FOR UPDATE}, {@code FOR SHARE}, {@code LOCK IN SHARE MODE}), as an UPDATE setting {@code column = -1 - column}
     * on the rows its WHERE selects, which are the rows it locks: they show in its effect. Empty for other statements, and
     * where not every row it selects is returned (LIMIT, OFFSET, FETCH, DISTINCT, GROUP BY).
     */
    static Optional<String> markingLockedRows(String sql, String table, String column) {
        // the parser does not read MySQL's LOCK IN SHARE MODE: the SELECT without it is what selects the rows
        Matcher shareMode = LOCK_IN_SHARE_MODE.matcher(sql);
        boolean sharing = shareMode.find();
        if (!(txfuzz.gen.StatementStructure.parse(sharing ? sql.substring(0, shareMode.start()) : sql)
                instanceof net.sf.jsqlparser.statement.select.PlainSelect select)
                || !(sharing ? select.getForMode() == null : select.getForMode() != null && LOCKING_MODES.contains(select.getForMode()))
                || select.getForUpdateTable() != null
                || select.getJoins() != null && !select.getJoins().isEmpty() || select.getLimit() != null || select.getOffset() != null
                || select.getFetch() != null || select.getDistinct() != null || select.getGroupBy() != null
                || !(select.getFromItem() instanceof net.sf.jsqlparser.schema.Table from) || !from.getName().equalsIgnoreCase(table)) {
            return Optional.empty();
        }
        String alias = from.getAlias() != null ? from.getAlias().getName() : from.getName();
        return Optional.of("UPDATE " + from.getName() + " AS " + alias + " SET " + column + " = -1 - " + column
                + (select.getWhere() == null ? "" : " WHERE " + select.getWhere()));
    }

    private static final Pattern INSERT_INTO = Pattern.compile("^(\\s*INSERT\\s+INTO\\s+)(\\w+)\\b", Pattern.CASE_INSENSITIVE);

    /** {@code sql}, an {@code INSERT INTO table …}, inserting into {@code copy} instead; empty for other statements. */
    static Optional<String> insertingInto(String sql, String table, String copy) {
        Matcher m = INSERT_INTO.matcher(sql);
        return m.find() && m.group(2).equalsIgnoreCase(table) ? Optional.of(m.group(1) + copy + sql.substring(m.end())) : Optional.empty();
    }

    private static final Pattern INSERT_SELECT = Pattern.compile("^\\s*INSERT\\s+INTO\\s+(\\w+)\\s*(\\([^)]*\\))?\\s*SELECT\\b",
            Pattern.CASE_INSENSITIVE);

    /** The table an {@code INSERT INTO table [(columns)] SELECT …} inserts into; empty for other statements. */
    static Optional<String> insertSelectTarget(String sql) {
        Matcher m = INSERT_SELECT.matcher(sql);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** Whether {@code sql}, an {@code INSERT … SELECT}, names the columns it inserts into. */
    static boolean insertSelectHasColumnList(String sql) {
        Matcher m = INSERT_SELECT.matcher(sql);
        return m.find() && m.group(2) != null;
    }

    /** Whether {@code sql} is an {@code INSERT INTO table …}. */
    static boolean insertsInto(String sql, String table) {
        return insertingInto(sql, table, table).isPresent();
    }

    private static final Pattern LOCK_IN_SHARE_MODE = Pattern.compile("\\s+LOCK\\s+IN\\s+SHARE\\s+MODE\\s*;?\\s*$", Pattern.CASE_INSENSITIVE);

    private static final Set<net.sf.jsqlparser.statement.select.ForMode> LOCKING_MODES = Set.of(
            net.sf.jsqlparser.statement.select.ForMode.UPDATE, net.sf.jsqlparser.statement.select.ForMode.SHARE);

    /**
     * {@code sql}, a single-table UPDATE ({@link #target}), with {@code column = -1 - column} put first in its SET
     * list: every row it matches then changes, so the rows it matched show in its effect. Empty for other statements.
     */
    static Optional<String> markingEveryMatch(String sql, String column) {
        Matcher m = SINGLE_TABLE_WRITE.matcher(sql);
        if (target(sql).isEmpty() || !m.find() || m.group(4) == null || !m.group(4).equalsIgnoreCase("SET")) {
            return Optional.empty();
        }
        return Optional.of(sql.substring(0, m.end(4)) + " " + column + " = -1 - " + column + "," + sql.substring(m.end(4)));
    }

    /**
     * {@code sql}, a single-table UPDATE ({@link #target}), with its SET list replaced by {@code column = -1 - column}: the
     * rows its WHERE matches, without evaluating its assignments, which may fail on a row's version where they succeed on
     * another (a CHECK on the value a SET computes). Empty for other statements, or where its WHERE cannot be found for
     * certain (outside parentheses and quotes).
     */
    static Optional<String> markingOnlyWhatItMatches(String sql, String column) {
        Matcher m = SINGLE_TABLE_WRITE.matcher(sql);
        if (target(sql).isEmpty() || !m.find() || m.group(4) == null || !m.group(4).equalsIgnoreCase("SET")) {
            return Optional.empty();
        }
        int depth = 0;
        boolean quoted = false;
        for (int i = m.end(4); i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            } else if (quoted) {
                continue;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0 && sql.regionMatches(true, i, "WHERE", 0, 5) && Character.isWhitespace(sql.charAt(i - 1))
                    && (i + 5 == sql.length() || !Character.isLetterOrDigit(sql.charAt(i + 5)) && sql.charAt(i + 5) != '_')) {
                return Optional.of(sql.substring(0, m.end(4)) + " " + column + " = -1 - " + column + " " + sql.substring(i));
            }
        }
        return depth == 0 && !quoted ? Optional.of(sql.substring(0, m.end(4)) + " " + column + " = -1 - " + column) : Optional.empty();
    }

    /**
     * The key a table's rows are stored and scanned in (its PRIMARY KEY, or the index the engine clusters by):
     * the positions of its columns in a row as read by {@code SELECT *}, and whether each is numeric.
     */
    record ClusteredKey(List<Integer> positions, List<Boolean> numeric) {
        /** The order of two rows' keys; empty when it is not certain. */
        Optional<Integer> compare(List<String> a, List<String> b) {
            for (int i = 0; i < positions.size(); i++) {
                String x = a.get(positions.get(i));
                String y = b.get(positions.get(i));
                if (x == null || y == null) {
                    return Optional.empty(); // a clustered key has no NULLs: not a row as the engine holds it
                }
                Optional<Integer> c = numeric.get(i) ? compareNumbers(x, y) : compareText(x, y);
                if (c.isEmpty() || c.get() != 0) {
                    return c;
                }
            }
            return Optional.of(0);
        }

        private static Optional<Integer> compareNumbers(String x, String y) {
            try {
                return Optional.of(Integer.signum(new BigDecimal(x).compareTo(new BigDecimal(y))));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }

        /** Plain ASCII text without trailing blanks, ordered the same with and without case: any collation orders it so. */
        private static Optional<Integer> compareText(String x, String y) {
            if (!plain(x) || !plain(y)) {
                return Optional.empty();
            }
            int exact = Integer.signum(x.compareTo(y));
            int folded = Integer.signum(x.toLowerCase(Locale.ROOT).compareTo(y.toLowerCase(Locale.ROOT)));
            return exact == folded ? Optional.of(exact) : Optional.empty();
        }

        private static boolean plain(String s) {
            return s.chars().allMatch(ch -> ch < 128) && !s.endsWith(" ");
        }
    }

    /**
     * The key {@code table}'s rows are stored and scanned in: as the engine reports it ({@link Engine#clusteredKey};
     * InnoDB without a PRIMARY KEY: the UNIQUE NOT NULL index it clusters by), else the PRIMARY KEY from JDBC
     * metadata on {@code c}; empty when there is neither (InnoDB's hidden row id: insertion order, which the caller
     * follows by an identity column of its own, {@link Engine#insertionOrderRead}).
     */
    static Optional<ClusteredKey> clusteredKey(Engine engine, Connection c, String table) throws SQLException {
        return byColumns(c, table, keyColumns(engine, c, table));
    }

    /** The columns of {@code table}'s clustered key ({@link #clusteredKey}); empty when it has none. */
    static List<String> keyColumns(Engine engine, Connection c, String table) throws SQLException {
        Optional<List<String>> reported = engine.clusteredKey(c, table);
        return reported.isPresent() ? reported.get() : jdbcPrimaryKey(c, table);
    }

    /** {@code keyColumns} of {@code table} as a key; empty when there are none or one is not a column of the table. */
    static Optional<ClusteredKey> byColumns(Connection c, String table, List<String> keyColumns) throws SQLException {
        if (keyColumns.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Integer> position = new LinkedHashMap<>();
        Map<String, Boolean> numeric = new LinkedHashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                String name = rs.getMetaData().getColumnName(i).toLowerCase(Locale.ROOT);
                position.put(name, i - 1);
                numeric.put(name, isNumeric(rs.getMetaData().getColumnType(i)));
            }
        }
        List<Integer> positions = new ArrayList<>();
        List<Boolean> numerics = new ArrayList<>();
        for (String column : keyColumns) {
            Integer p = position.get(column.toLowerCase(Locale.ROOT));
            if (p == null) {
                return Optional.empty();
            }
            positions.add(p);
            numerics.add(numeric.get(column.toLowerCase(Locale.ROOT)));
        }
        return Optional.of(new ClusteredKey(positions, numerics));
    }

    /** {@code table}'s PRIMARY KEY columns in key order, from JDBC metadata; empty when it has none. */
    private static List<String> jdbcPrimaryKey(Connection c, String table) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        Map<Integer, String> keyColumns = new TreeMap<>();
        for (String name : List.of(table, table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT))) {
            try (ResultSet rs = md.getPrimaryKeys(c.getCatalog(), c.getSchema(), name)) {
                while (rs.next()) {
                    keyColumns.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
                }
            }
            if (!keyColumns.isEmpty()) {
                break;
            }
        }
        return List.copyOf(keyColumns.values());
    }

    private static boolean isNumeric(int sqlType) {
        return switch (sqlType) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT, Types.DECIMAL, Types.NUMERIC, Types.REAL, Types.FLOAT,
                    Types.DOUBLE -> true;
            default -> false;
        };
    }

    /** Whether the engine's plan for {@code sql} scans {@code target} first and in the order of its clustered key. */
    static boolean scansInKeyOrder(Engine engine, Connection c, String sql, Target target) throws SQLException {
        return engine.scansInClusteredKeyOrder(c, sql, target.table(), target.name()).orElse(false);
    }

    /**
     * The first of {@code held} (rows a blocking transaction held) in key order: where the scan waited.
     * Empty when there is none or their order is not certain.
     */
    static Optional<List<String>> firstInKeyOrder(ClusteredKey key, List<List<String>> held) {
        List<String> first = null;
        for (List<String> row : held) {
            if (first == null) {
                first = row;
                continue;
            }
            Optional<Integer> c = key.compare(row, first);
            if (c.isEmpty()) {
                return Optional.empty();
            }
            if (c.get() < 0) {
                first = row;
            }
        }
        return Optional.ofNullable(first);
    }

    /**
     * The rows of {@code table} a scan that waited on {@code waitedOn} read: those ordered before it as they were in
     * {@code submitted}, and it and those after it as they are in {@code resumed}. A row (by its identity, the last column)
     * met in both parts, moved forward past the scan position, is read once, at its new place. Empty when some key cannot
     * be placed.
     */
    record Split(List<List<String>> before, List<List<String>> fromWaitedOn) {
        /** Both parts, in scan order. */
        List<List<String>> rows() {
            List<List<String>> all = new ArrayList<>(before);
            all.addAll(fromWaitedOn);
            return all;
        }
    }

    /** See {@link Split}. */
    static Optional<Split> split(DbState submitted, DbState resumed, String table, ClusteredKey key, List<String> waitedOn) {
        List<List<String>> after = new ArrayList<>();
        Set<String> seenAfter = new HashSet<>();
        for (List<String> row : resumed.tables().getOrDefault(table, List.of())) {
            Optional<Integer> c = key.compare(row, waitedOn);
            if (c.isEmpty()) {
                return Optional.empty();
            }
            if (c.get() >= 0) {
                after.add(row);
                seenAfter.add(row.get(row.size() - 1));
            }
        }
        List<List<String>> before = new ArrayList<>();
        for (List<String> row : submitted.tables().getOrDefault(table, List.of())) {
            Optional<Integer> c = key.compare(row, waitedOn);
            if (c.isEmpty()) {
                return Optional.empty();
            }
            if (c.get() < 0 && !seenAfter.contains(row.get(row.size() - 1))) {
                before.add(row);
            }
        }
        return Optional.of(new Split(before, after));
    }

    /**
     * The rows of {@code table} a scan that walked the table as it was in {@code submitted} and waited on {@code waitedOn}
     * read: those ordered before it as they were in {@code submitted}; it and those after it that {@code submitted} holds, each
     * in its version in {@code resumed} (a scan that locks each row reads its newest version), skipped when gone there. A row
     * is found in {@code resumed} by its identity (the last column), or, where the key is a column of the row (not the
     * identity's order), by its key: the engine keeps a row's place by its key, so a row deleted and inserted again with the
     * same key is the same place to it. Empty when some key cannot be placed.
     */
    static Optional<Split> splitOnSubmitted(DbState submitted, DbState resumed, String table, ClusteredKey key, List<String> waitedOn) {
        List<List<String>> resumedRows = resumed.tables().getOrDefault(table, List.of());
        List<List<String>> before = new ArrayList<>();
        List<List<String>> after = new ArrayList<>();
        Set<String> taken = new HashSet<>();
        for (List<String> row : submitted.tables().getOrDefault(table, List.of())) {
            Optional<Integer> c = key.compare(row, waitedOn);
            if (c.isEmpty()) {
                return Optional.empty();
            }
            if (c.get() < 0) {
                before.add(row);
                continue;
            }
            boolean byKey = !key.positions().contains(row.size() - 1);
            List<String> newest = null;
            for (List<String> r : resumedRows) {
                String id = r.get(r.size() - 1);
                if (id.equals(row.get(row.size() - 1)) && !taken.contains(id)) {
                    newest = r;
                    break;
                }
            }
            for (int i = 0; newest == null && byKey && i < resumedRows.size(); i++) {
                List<String> r = resumedRows.get(i);
                Optional<Integer> same = key.compare(r, row);
                if (same.isEmpty()) {
                    return Optional.empty();
                }
                if (same.get() == 0 && !taken.contains(r.get(r.size() - 1))) {
                    newest = r;
                }
            }
            if (newest != null) {
                taken.add(newest.get(newest.size() - 1));
                after.add(newest);
            }
        }
        return Optional.of(new Split(before, after));
    }

    /**
     * The view of a scan that waited twice: the rows ordered before {@code firstWait} as in {@code submitted}, those from it up
     * to (not including) {@code secondWait} as in {@code between} (when the first wait ended), and {@code secondWait} and the
     * rows after it as in {@code resumed}; a row is read once, in the last part that holds it (by identity), as {@link #split}
     * does for one wait. Every other table as it is in {@code resumed}. Empty when some key cannot be placed.
     */
    static Optional<DbState> splitViewTwice(DbState submitted, DbState between, DbState resumed, String table, ClusteredKey key,
            List<String> firstWait, List<String> secondWait) {
        Optional<Split> late = split(between, resumed, table, key, secondWait);
        Optional<Split> early = split(submitted, between, table, key, firstWait);
        if (late.isEmpty() || early.isEmpty()) {
            return Optional.empty();
        }
        Set<String> seenLater = new HashSet<>();
        List<List<String>> middle = new ArrayList<>();
        for (List<String> row : late.get().before()) {
            Optional<Integer> c = key.compare(row, firstWait);
            if (c.isEmpty()) {
                return Optional.empty();
            }
            if (c.get() >= 0) {
                middle.add(row);
            }
        }
        middle.forEach(r -> seenLater.add(r.get(r.size() - 1)));
        late.get().fromWaitedOn().forEach(r -> seenLater.add(r.get(r.size() - 1)));
        List<List<String>> rows = new ArrayList<>();
        for (List<String> row : early.get().before()) {
            if (!seenLater.contains(row.get(row.size() - 1))) {
                rows.add(row);
            }
        }
        rows.addAll(middle);
        rows.addAll(late.get().fromWaitedOn());
        Map<String, List<List<String>>> tables = new LinkedHashMap<>(resumed.tables());
        tables.put(table, rows);
        return Optional.of(new DbState(tables));
    }

    /** {@code resumed} with {@code table} read as {@link #split} says: every other table as it is in {@code resumed}. */
    static Optional<DbState> splitView(DbState submitted, DbState resumed, String table, ClusteredKey key, List<String> waitedOn) {
        return split(submitted, resumed, table, key, waitedOn).map(split -> {
            Map<String, List<List<String>>> tables = new LinkedHashMap<>(resumed.tables());
            tables.put(table, split.rows());
            return new DbState(tables);
        });
    }
}
