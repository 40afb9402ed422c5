package txfuzz.dbms;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.util.Properties;

/**
 * An engine's JDBC driver, used directly rather than through DriverManager: a driver loaded in an
 * isolated class loader (another version of the engine) is invisible to DriverManager, and two
 * versions of one engine accept the same URLs.
 *
 * @param driver  the driver instance
 * @param version the Maven version of the engine's jar it came from (e.g. "2.4.240")
 */
public record Jdbc(Driver driver, String version) {
    public Connection connect(String url) throws SQLException {
        return connect(url, new Properties());
    }

    public Connection connect(String url, String user, String password) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        return connect(url, p);
    }

    public Connection connect(String url, Properties properties) throws SQLException {
        Connection c = driver.connect(url, properties);
        if (c == null) { // Driver.connect's answer for a URL of another driver
            throw new SQLException(driver.getClass().getName() + " does not take the URL " + url, "08001");
        }
        return c;
    }
}
