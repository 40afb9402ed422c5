package txfuzz.dbms.duckdb;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Drops the key constraints of a DuckDB database txfuzz made for a simulation. DuckDB's ALTER TABLE has no DROP
 * CONSTRAINT (https://duckdb.org/docs/stable/sql/statements/alter_table), so a table with a PRIMARY KEY, UNIQUE or
 * FOREIGN KEY constraint is made again without them: the same columns (types, defaults, NOT NULL, a key's columns
 * staying NOT NULL), its CHECK constraints, its rows. A foreign key needs its parent's key, so it goes too, as
 * on the other engines. Unique indexes are dropped; other indexes are not made again (no simulation reads a plan).
 */
final class KeylessTables {
    private static final Set<String> KEYS = Set.of("PRIMARY KEY", "UNIQUE", "FOREIGN KEY");
    private static final String SUFFIX = "__txfuzz_keyless";

    private KeylessTables() {
    }

    static void drop(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String index : strings(s, "SELECT index_name FROM duckdb_indexes() WHERE is_unique AND NOT is_primary"
                    + " AND database_name = current_database() AND schema_name = current_schema()")) {
                s.execute("DROP INDEX IF EXISTS " + quote(index));
            }
            Set<String> keyed = new LinkedHashSet<>(strings(s, "SELECT DISTINCT table_name FROM duckdb_constraints() WHERE constraint_type IN"
                    + " ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY') AND database_name = current_database() AND schema_name = current_schema()"
                    + " ORDER BY table_name"));
            if (keyed.isEmpty()) {
                return;
            }
            for (String table : keyed) {
                s.execute(keyless(s, table));
                s.execute("INSERT INTO " + quote(table + SUFFIX) + " SELECT * FROM " + quote(table));
            }
            dropInDependencyOrder(c, keyed);
            for (String table : keyed) {
                s.execute("ALTER TABLE " + quote(table + SUFFIX) + " RENAME TO " + quote(table));
            }
        }
    }

    /** CREATE TABLE for {@code table}'s copy: its columns and CHECK constraints, no key. */
    private static String keyless(Statement s, String table) throws SQLException {
        Map<String, String> columns = new LinkedHashMap<>();
        try (ResultSet rs = s.executeQuery("SELECT column_name, data_type, column_default, is_nullable FROM duckdb_columns()"
                + " WHERE database_name = current_database() AND schema_name = current_schema() AND table_name = " + literal(table)
                + " ORDER BY column_index")) {
            while (rs.next()) {
                String def = rs.getString(3);
                columns.put(rs.getString(1), rs.getString(2) + (def == null ? "" : " DEFAULT (" + def + ")") + (rs.getBoolean(4) ? "" : " NOT NULL"));
            }
        }
        List<String> parts = new ArrayList<>();
        columns.forEach((name, definition) -> parts.add(quote(name) + " " + definition));
        try (ResultSet rs = s.executeQuery("SELECT constraint_type, constraint_text FROM duckdb_constraints() WHERE database_name = current_database()"
                + " AND schema_name = current_schema() AND table_name = " + literal(table) + " ORDER BY constraint_index")) {
            while (rs.next()) {
                if ("CHECK".equals(rs.getString(1))) {
                    parts.add(rs.getString(2));
                } else if (!KEYS.contains(rs.getString(1)) && !"NOT NULL".equals(rs.getString(1))) {
                    throw new SQLException("a " + rs.getString(1) + " constraint on " + table + " would be lost without its keys");
                }
            }
        }
        return "CREATE TABLE " + quote(table + SUFFIX) + " (" + String.join(", ", parts) + ")";
    }

    /**
     * Drops the tables, a child before the parent its foreign key names (DuckDB refuses the parent first); a statement each
     * try, since DuckDB's driver closes a statement that failed.
     */
    private static void dropInDependencyOrder(Connection c, Set<String> tables) throws SQLException {
        Set<String> left = new LinkedHashSet<>(tables);
        while (!left.isEmpty()) {
            SQLException last = null;
            int before = left.size();
            for (String table : List.copyOf(left)) {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE " + quote(table));
                    left.remove(table);
                } catch (SQLException e) {
                    last = e;
                }
            }
            if (left.size() == before) {
                throw last;
            }
        }
    }

    private static List<String> strings(Statement s, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
