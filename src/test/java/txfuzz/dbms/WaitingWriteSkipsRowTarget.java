package txfuzz.dbms;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fault injection for the rules that explain a waiting write by what it reads once its lock is granted (H2's and
 * PostgreSQL's READ COMMITTED re-check, MariaDB's resumed and semi-consistent read): a real engine whose
 * {@code UPDATE t SET … WHERE c} or {@code DELETE FROM t WHERE c}, submitted while another session holds an uncommitted
 * write, waits for the rows it chose (a {@code SELECT … FOR UPDATE} of them) and then changes none. A waiting write that skips
 * a row whose newest committed version still matches is what no such reading gives — the shape of H2's real defect
 * (h2-rc-waiting-update-skips-rekeyed-row) — so it must stay a bug candidate. Serial replays and simulations (one session at a
 * time) never meet the fault. The wrapped target belongs to the caller.
 */
public final class WaitingWriteSkipsRowTarget extends DelegatingTarget {
    private static final Pattern UPDATE = Pattern.compile("(?is)\\s*UPDATE\\s+(\\w+)\\s+SET\\s+(.+?)\\s+WHERE\\s+(.+?)\\s*;?\\s*");
    private static final Pattern DELETE = Pattern.compile("(?is)\\s*DELETE\\s+FROM\\s+(\\w+)\\s+WHERE\\s+(.+?)\\s*;?\\s*");

    public WaitingWriteSkipsRowTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with a waiting UPDATE or DELETE that changes nothing";
    }

    @Override
    public void close() {
        // the wrapped target is the caller's
    }

    @Override
    public Database freshDatabase() throws java.sql.SQLException {
        return trackingUncommittedWrites(real.freshDatabase(), this::skipping);
    }

    private Statement skipping(Connection c, Object session, Statement s, UncommittedWrites writes) {
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql
                    && writes.heldBesides(session)) {
                Matcher update = UPDATE.matcher(sql);
                Matcher delete = DELETE.matcher(sql);
                String table = update.matches() ? update.group(1) : delete.matches() ? delete.group(1) : null;
                String where = update.matches() ? update.group(3) : delete.matches() ? delete.group(2) : null;
                if (table != null) {
                    try (Statement lock = c.createStatement()) {
                        lock.executeQuery("SELECT * FROM " + table + " WHERE " + where + " FOR UPDATE").close();
                    }
                    args = args.clone();
                    args[0] = update.matches() ? "UPDATE " + table + " SET " + update.group(2) + " WHERE (" + where + ") AND 1 = 0"
                            : "DELETE FROM " + table + " WHERE (" + where + ") AND 1 = 0"; // the injected bug
                }
            }
            return invoke(s, method, args);
        });
    }
}
