package txfuzz.dbms.mariadb;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The columns of one index of a table, in the index's order, from {@code information_schema.STATISTICS}. */
final class IndexColumns {
    private static final String QUERY = "SELECT COLUMN_NAME, COLLATION, SUB_PART FROM information_schema.STATISTICS"
            + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ? ORDER BY SEQ_IN_INDEX";

    private IndexColumns() {
    }

    /**
     * {@code index}'s columns on {@code table} in {@code c}'s current database; empty when it has none, when a column is
     * descending or indexed by a prefix (its entries are then not in the column's order), or the view cannot be read.
     */
    static Optional<List<String>> ascending(Connection c, String table, String index) {
        List<String> columns = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(QUERY)) {
            s.setString(1, table);
            s.setString(2, index);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    if (!"A".equals(rs.getString(2)) || rs.getObject(3) != null) {
                        return Optional.empty();
                    }
                    columns.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            return Optional.empty();
        }
        return columns.isEmpty() ? Optional.empty() : Optional.of(List.copyOf(columns));
    }
}
