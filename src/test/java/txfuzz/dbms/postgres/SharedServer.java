package txfuzz.dbms.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.TestServers;

/**
 * One started PostgreSQL server for all PostgreSQL test classes of a test JVM (starting one costs
 * about 2.5 s). It stops when the JVM exits (the target's shutdown hook). Tests that kill the
 * server start their own.
 */
final class SharedServer {
    private SharedServer() {
    }

    /** The test JVM's shared PostgreSQL target ({@link TestServers#shared}): never close it. */
    static PostgresTarget target() {
        return (PostgresTarget) TestServers.shared("postgres");
    }

    /** The shared server's address, for targets that reach it "as an existing server". */
    static String url() {
        return "jdbc:postgresql://127.0.0.1:" + target().server().port() + "/postgres";
    }

    /** The shared server "given by --url", with its superuser and the password of this start (the server's administrator). */
    static TargetOptions asExistingServer() {
        return new TargetOptions(url(), EmbeddedServer.SUPERUSER, target().server().superuserPassword(), null);
    }

    /** A superuser session on the shared server's maintenance database, outside any txfuzz namespace. */
    static Connection admin() throws SQLException {
        return target().server().adminEndpoint().open("postgres");
    }

    static void exec(Connection c, String... sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    static List<List<String>> rows(Connection c, String sql) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    row.add(txfuzz.model.Values.normalise(rs.getObject(i)));
                }
                out.add(row);
            }
        }
        return out;
    }

    static String value(Connection c, String sql) throws SQLException {
        return rows(c, sql).get(0).get(0);
    }
}
