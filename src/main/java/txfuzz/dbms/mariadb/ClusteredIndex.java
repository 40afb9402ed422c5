package txfuzz.dbms.mariadb;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The index InnoDB stores a table's rows in, as InnoDB's own data dictionary says: the PRIMARY KEY, else the
 * first UNIQUE index the server found with every column NOT NULL and no prefix part, else a hidden row id
 * (GEN_CLUST_INDEX, no column: rows in insertion order). Asked of the dictionary rather than rebuilt from the
 * manual's rule because the rule has exceptions (measured on 11.4.5: {@code UNIQUE KEY (a(3))} on a NOT NULL
 * column declared first is passed over for a later {@code UNIQUE (b)}), and because
 * {@code information_schema.COLUMNS.COLUMN_KEY = 'PRI'} marks the promoted key's columns but not their order in it.
 *
 * @param name    the index's name, as EXPLAIN's {@code key} column shows it
 * @param columns its columns, in key order
 */
record ClusteredIndex(String name, List<String> columns) {
    /** InnoDB's clustered index has bit 1 of SYS_INDEXES.TYPE set; GEN_CLUST_INDEX has no SYS_FIELDS row. */
    private static final String QUERY = "SELECT i.NAME, f.NAME FROM information_schema.INNODB_SYS_TABLES t"
            + " JOIN information_schema.INNODB_SYS_INDEXES i ON i.TABLE_ID = t.TABLE_ID"
            + " JOIN information_schema.INNODB_SYS_FIELDS f ON f.INDEX_ID = i.INDEX_ID"
            + " WHERE t.NAME = CONCAT(DATABASE(), '/', ?) AND (i.TYPE & 1) = 1 AND i.NAME <> 'GEN_CLUST_INDEX' ORDER BY f.POS";

    /**
     * {@code table}'s clustered index in {@code c}'s current database; empty when the rows are ordered by a hidden
     * row id, or the dictionary cannot be read (a server without these tables, such as MySQL 8, or a user without
     * the PROCESS privilege): then the order is not known.
     */
    static Optional<ClusteredIndex> of(Connection c, String table) {
        String name = null;
        List<String> columns = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(QUERY)) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    name = rs.getString(1);
                    columns.add(rs.getString(2));
                }
            }
        } catch (SQLException e) {
            return Optional.empty();
        }
        return name == null ? Optional.empty() : Optional.of(new ClusteredIndex(name, List.copyOf(columns)));
    }
}
