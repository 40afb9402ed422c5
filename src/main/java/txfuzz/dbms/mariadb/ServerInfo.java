package txfuzz.dbms.mariadb;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the server says it is, and what differs between the flavours the target drives.
 *
 * <table>
 * <caption>flavour differences</caption>
 * <tr><th></th><th>MariaDB 10.11</th><th>MySQL 8.0</th></tr>
 * <tr><td>isolation variable</td><td>tx_isolation (transaction_isolation from 11.1)</td><td>transaction_isolation</td></tr>
 * <tr><td>lock probe</td><td colspan="2">SHOW ENGINE INNODB STATUS ("MariaDB thread id" / "MySQL thread id")</td></tr>
 * <tr><td>SELECT ... FOR SHARE</td><td>no (LOCK IN SHARE MODE only)</td><td>yes (and LOCK IN SHARE MODE)</td></tr>
 * <tr><td>UPDATE/DELETE with a subquery on the same table</td><td>allowed (10.3.2+)</td><td>error 1093</td></tr>
 * <tr><td>CHECK violation</td><td>4025</td><td>3819</td></tr>
 * <tr><td>CHECK constraints</td><td colspan="2">enforced from MariaDB 10.2.1 and MySQL 8.0.16; before, parsed and ignored</td></tr>
 * <tr><td>after a deadlock (1213)</td><td>the transaction is rolled back, but a session that opened it with BEGIN stays in
 *     "explicit transaction" mode: its next statements form a new transaction that a later ROLLBACK undoes
 *     (MDEV-27922)</td><td>rolled back and ended; later statements autocommit</td></tr>
 * </table>
 *
 * @param flavour         "MariaDB" or "MySQL" (Percona and other MySQL builds count as MySQL)
 * @param version         VERSION(), e.g. "10.11.5-MariaDB"
 * @param comment         @@version_comment, e.g. "MariaDB Server"
 * @param major           e.g. 10
 * @param minor           e.g. 11
 * @param patch           e.g. 5
 * @param snapshotIsolation @@innodb_snapshot_isolation ("ON"/"OFF", MariaDB 10.6.18/10.11.8+), or null where absent
 */
record ServerInfo(String flavour, String version, String comment, int major, int minor, int patch, String snapshotIsolation) {
    private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

    static ServerInfo read(Connection c) throws SQLException {
        String version;
        String comment;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT VERSION(), @@version_comment")) {
            rs.next();
            version = rs.getString(1);
            comment = rs.getString(2);
        }
        String flavour = flavourOf(version, comment).orElseThrow(() -> new IllegalStateException("the server says it is " + version
                + (comment == null || comment.isBlank() ? "" : " (" + comment + ")") + ": txfuzz knows what MariaDB and MySQL promise"
                + " at each isolation level, not what this server does, so it does not judge it (a verdict needs the promise it checks)"));
        Matcher m = MAJOR_MINOR.matcher(version);
        boolean found = m.find();
        int major = found ? Integer.parseInt(m.group(1)) : 0;
        int minor = found ? Integer.parseInt(m.group(2)) : 0;
        int patch = found && m.group(3) != null ? Integer.parseInt(m.group(3)) : 0;
        String snapshot = null;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW VARIABLES LIKE 'innodb_snapshot_isolation'")) {
            if (rs.next()) {
                snapshot = rs.getString(2);
            }
        }
        return new ServerInfo(flavour, version, comment, major, minor, patch, snapshot);
    }

    /** Servers that speak MySQL's protocol and say so in VERSION() or @@version_comment, with promises of their own. */
    private static final java.util.List<String> OTHER_SERVERS = java.util.List.of("tidb", "vitess", "oceanbase", "singlestore", "memsql",
            "dolt", "doris", "starrocks", "manticore", "proxysql", "cockroach", "yugabyte");

    /**
     * "MariaDB" or "MySQL" (Percona and other builds of MySQL count as MySQL) from what the server says it is; empty for a
     * server that speaks MySQL's protocol but is another engine (TiDB says "MySQL 8.0 compatible" in its comment), or that
     * names neither: its isolation levels promise what its own manual says, which txfuzz does not know.
     */
    static java.util.Optional<String> flavourOf(String version, String comment) {
        String said = (version + " " + (comment == null ? "" : comment)).toLowerCase(Locale.ROOT);
        if (OTHER_SERVERS.stream().anyMatch(said::contains)) {
            return java.util.Optional.empty();
        }
        if (said.contains("mariadb")) {
            return java.util.Optional.of("MariaDB");
        }
        // MySQL's own builds say "MySQL Community Server - GPL" or "... Enterprise ...", Percona's "Percona Server", a build
        // from source (Amazon Aurora's too) "Source distribution"
        boolean mysql = said.contains("mysql") || said.contains("percona") || said.contains("source distribution");
        return mysql ? java.util.Optional.of("MySQL") : java.util.Optional.empty();
    }

    boolean isMariadb() {
        return flavour.equals("MariaDB");
    }

    /** The session variable that holds the isolation level. */
    String isolationVariable() {
        if (isMariadb()) {
            return major > 11 || (major == 11 && minor >= 1) ? "transaction_isolation" : "tx_isolation";
        }
        return "transaction_isolation";
    }

    boolean hasForShare() {
        return !isMariadb() && major >= 8;
    }

    /** Whether UPDATE/DELETE may read the table they write in a subquery (MariaDB 10.3.2+; MySQL: error 1093). */
    boolean writesMayReadTheirTable() {
        return isMariadb() && (major > 10 || (major == 10 && minor >= 3));
    }

    /**
     * Whether SHOW ENGINE INNODB STATUS leaves out the lock wait of a transaction that has not written
     * yet (an autocommit INSERT ... SELECT waiting for a row it reads): measured on MariaDB 10.2.11,
     * whose InnoDB is MySQL 5.7's; 10.1.8 and 11.4.5 list it.
     */
    boolean statusOmitsReadOnlyWaits() {
        return isMariadb() && major == 10 && minor == 2;
    }

    /**
     * Whether CHECK constraints are enforced: from MariaDB 10.2.1 (before, "constraint expressions were accepted in the syntax
     * but ignored", https://mariadb.com/kb/en/constraint/) and MySQL 8.0.16 (before, "parsed and ignored",
     * https://dev.mysql.com/doc/refman/8.0/en/create-table-check-constraints.html).
     */
    boolean enforcesCheck() {
        return isMariadb() ? atLeast(10, 2, 1) : atLeast(8, 0, 16);
    }

    private boolean atLeast(int ma, int mi, int pa) {
        return major != ma ? major > ma : minor != mi ? minor > mi : patch >= pa;
    }

    /** e.g. "MariaDB 10.11.5-MariaDB (MariaDB Server)". */
    String describe() {
        String s = flavour + " " + version + (comment == null || comment.isBlank() ? "" : " (" + comment + ")");
        return snapshotIsolation == null ? s : s + ", innodb_snapshot_isolation=" + snapshotIsolation;
    }
}
