package txfuzz.dbms.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.Set;

/**
 * Where a PostgreSQL server listens and how to log in: hosts and ports, the maintenance database
 * named in the URL, and the driver properties (user, password, the user's own URL parameters).
 * Connections to any database of that server are opened from here. The password is kept only in
 * the properties handed to the driver; {@link #toString()} and every message name the server by
 * host, port and database alone.
 */
final class Endpoint {
    private static final String PREFIX = "jdbc:postgresql:";
    /** Properties pgjdbc's URL parser fills in that describe the address, not the session. */
    private static final Set<String> ADDRESS = Set.of("PGHOST", "PGPORT", "PGDBNAME");

    private final String hostPorts;
    private final String maintenanceDb;
    private final Properties props;

    private Endpoint(String hostPorts, String maintenanceDb, Properties props) {
        this.hostPorts = hostPorts;
        this.maintenanceDb = maintenanceDb;
        this.props = props;
    }

    /**
     * The server txfuzz started: 127.0.0.1 only (the address it listens on), as {@code user} with the
     * password of this start.
     */
    static Endpoint local(int port, String user, String password) {
        Properties p = defaults();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("sslmode", "disable");
        return new Endpoint("127.0.0.1:" + port, "postgres", p);
    }

    /**
     * An existing server given by the user. IllegalArgumentException, without echoing the URL's
     * parameters (they may hold a password), when {@code url} is not a PostgreSQL JDBC URL.
     */
    static Endpoint of(String url, String user, String password) {
        if (url == null || !url.startsWith(PREFIX)) {
            throw new IllegalArgumentException("--url must be a PostgreSQL JDBC URL like jdbc:postgresql://host:5432/postgres; got "
                    + (url == null ? "none" : redacted(url)));
        }
        Properties parsed = org.postgresql.Driver.parseURL(url, null);
        if (parsed == null) {
            throw new IllegalArgumentException("--url is not a valid PostgreSQL JDBC URL: " + redacted(url));
        }
        String[] hosts = parsed.getProperty("PGHOST", "localhost").split(",");
        String[] ports = parsed.getProperty("PGPORT", "5432").split(",");
        StringBuilder hp = new StringBuilder();
        for (int i = 0; i < hosts.length; i++) {
            String host = hosts[i].contains(":") && !hosts[i].startsWith("[") ? "[" + hosts[i] + "]" : hosts[i];
            hp.append(i == 0 ? "" : ",").append(host).append(':').append(ports[Math.min(i, ports.length - 1)]);
        }
        String db = parsed.getProperty("PGDBNAME", "");
        Properties p = defaults();
        for (String k : parsed.stringPropertyNames()) {
            if (!ADDRESS.contains(k)) {
                p.setProperty(k, parsed.getProperty(k));
            }
        }
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        return new Endpoint(hp.toString(), db.isEmpty() ? "postgres" : db, p);
    }

    /** Short connect and login timeouts, so an unreachable server is an error within seconds. */
    private static Properties defaults() {
        Properties p = new Properties();
        p.setProperty("connectTimeout", "3");
        p.setProperty("loginTimeout", "5");
        p.setProperty("ApplicationName", "txfuzz");
        p.setProperty("tcpKeepAlive", "true");
        return p;
    }

    /** The URL up to its parameters: no user or password in it. */
    static String redacted(String url) {
        int q = url.indexOf('?');
        return q < 0 ? url : url.substring(0, q) + "?…";
    }

    String maintenanceDb() {
        return maintenanceDb;
    }

    String user() {
        return props.getProperty("user", System.getProperty("user.name"));
    }

    /** A new connection to {@code database} (not pooled), autocommit on. */
    Connection open(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + hostPorts + "/" + database, props);
    }

    /** For messages: host:port/database, never the credentials. */
    String describe(String database) {
        return hostPorts + "/" + database;
    }

    @Override
    public String toString() {
        return describe(maintenanceDb);
    }
}
