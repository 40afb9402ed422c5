package txfuzz.exec;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import txfuzz.model.DbState;
import txfuzz.dbms.Target;

/** Reads the contents of a test case's tables. */
public final class StateReader {
    private StateReader() {
    }

    public static DbState read(Target target, Connection c, List<String> tables) throws SQLException {
        Map<String, List<List<String>>> contents = new LinkedHashMap<>();
        try (Statement s = c.createStatement()) {
            for (String table : tables) {
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + target.quote(table))) {
                    contents.put(table, Session.readRows(rs));
                }
            }
        }
        return new DbState(contents);
    }

    /** The rows {@code query} returns, normalised as {@link #read} normalises them, in the order the engine returned them. */
    public static List<List<String>> rowsInReturnedOrder(Connection c, String query) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            return Session.readRows(rs);
        }
    }
}
