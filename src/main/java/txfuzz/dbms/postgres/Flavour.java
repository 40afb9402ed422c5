package txfuzz.dbms.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * What kind of server answers on the PostgreSQL wire protocol, from {@code version()} and
 * {@code server_version_num}. Only PostgreSQL itself (and services that run it unchanged and say
 * "PostgreSQL" in version()) is driven; look-alikes whose transactions differ are refused by name.
 *
 * @param product  "PostgreSQL"
 * @param version  version() up to the compiler note, e.g. "PostgreSQL 15.10 on x86_64-pc-linux-gnu"
 * @param major    15 for 15.10
 * @param minor    10 for 15.10
 */
record Flavour(String product, String version, int major, int minor) {
    /** The oldest major release txfuzz drives: pg_blocking_pids, ON CONFLICT and the three levels are there. */
    static final int OLDEST_MAJOR = 10;

    static Flavour detect(Connection c, String where) throws SQLException {
        String full;
        int num;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT version(), current_setting('server_version_num')")) {
            rs.next();
            full = rs.getString(1);
            num = Integer.parseInt(rs.getString(2).trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("the server at " + where + " does not report a PostgreSQL version number; txfuzz drives"
                    + " PostgreSQL " + OLDEST_MAJOR + " and later only");
        }
        return of(full, num, where);
    }

    /** IllegalStateException naming the product for servers txfuzz does not drive. */
    static Flavour of(String full, int versionNum, String where) {
        String v = full == null ? "" : full;
        String lower = v.toLowerCase(Locale.ROOT);
        String other = lower.contains("cockroachdb") ? "CockroachDB"
                : lower.contains("-yb-") || lower.contains("yugabyte") ? "YugabyteDB"
                : lower.contains("greenplum") ? "Greenplum"
                : lower.contains("redshift") ? "Amazon Redshift"
                : !lower.startsWith("postgresql") ? firstWords(v)
                : null;
        if (other != null) {
            throw new IllegalStateException("the server at " + where + " is " + other + ", not PostgreSQL: its isolation levels, lock waits"
                    + " and error codes differ from PostgreSQL's, and txfuzz has no profile for them yet (the postgres target drives"
                    + " PostgreSQL " + OLDEST_MAJOR + " and later)");
        }
        int major = versionNum >= 100000 ? versionNum / 10000 : versionNum / 100;
        int minor = versionNum >= 100000 ? versionNum % 10000 : versionNum % 100;
        if (versionNum < 100000 || major < OLDEST_MAJOR) {
            throw new IllegalStateException("the server at " + where + " runs " + firstWords(v) + "; txfuzz drives PostgreSQL " + OLDEST_MAJOR
                    + " and later");
        }
        int cut = v.indexOf(", compiled by");
        return new Flavour("PostgreSQL", cut > 0 ? v.substring(0, cut) : v, major, minor);
    }

    private static String firstWords(String v) {
        String[] w = v.trim().split("\\s+");
        return w.length >= 2 ? w[0] + " " + w[1] : v.trim();
    }

    /** MERGE arrived in PostgreSQL 15. */
    boolean hasMerge() {
        return major >= 15;
    }
}
