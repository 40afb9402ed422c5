package txfuzz.exec;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import txfuzz.model.DbState;
import txfuzz.dbms.Target;

/**
 * Replaces the contents of a test case's tables with a given state, so a statement can be run on
 * exactly the data some visibility rule says it saw. Tables are emptied last-first and filled
 * first-first, which suits foreign keys that point only to earlier tables (as generated).
 */
public final class StateLoader {
    private StateLoader() {
    }

    public static void load(Target target, Connection c, List<String> tables, DbState state) throws SQLException {
        List<String> reversed = new ArrayList<>(tables);
        Collections.reverse(reversed);
        try (Statement s = c.createStatement()) {
            for (String t : reversed) {
                s.executeUpdate("DELETE FROM " + target.quote(t));
            }
        }
        for (String t : tables) {
            List<List<String>> rows = state.tables().getOrDefault(t, List.of());
            if (rows.isEmpty()) {
                continue;
            }
            int[] types = columnTypes(target, c, t);
            String marks = String.join(", ", Collections.nCopies(types.length, "?"));
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + target.quote(t) + " VALUES (" + marks + ")")) {
                for (List<String> row : rows) {
                    for (int i = 0; i < types.length; i++) {
                        bind(p, i + 1, types[i], row.get(i));
                    }
                    p.executeUpdate();
                }
            }
        }
    }

    private static int[] columnTypes(Target target, Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); var rs = s.executeQuery("SELECT * FROM " + target.quote(table) + " WHERE 1 = 0")) {
            ResultSetMetaData md = rs.getMetaData();
            int[] types = new int[md.getColumnCount()];
            for (int i = 0; i < types.length; i++) {
                types[i] = md.getColumnType(i + 1);
            }
            return types;
        }
    }

    private static void bind(PreparedStatement p, int index, int sqlType, String value) throws SQLException {
        if (value == null) {
            p.setNull(index, sqlType);
            return;
        }
        switch (sqlType) {
            case Types.INTEGER, Types.SMALLINT, Types.TINYINT, Types.BIGINT -> p.setLong(index, new BigDecimal(value).longValueExact());
            case Types.DOUBLE, Types.FLOAT, Types.REAL -> p.setDouble(index, Double.parseDouble(value));
            case Types.DECIMAL, Types.NUMERIC -> p.setBigDecimal(index, new BigDecimal(value));
            case Types.BOOLEAN, Types.BIT -> p.setBoolean(index, value.equals("1"));
            default -> p.setString(index, value);
        }
    }
}
