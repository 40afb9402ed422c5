package txfuzz.dbms;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fault injection for the READ COMMITTED re-check rule: a real engine whose {@code DELETE FROM t WHERE c}, submitted while
 * another session holds an uncommitted write, waits for the rows it chose (a {@code SELECT ... FOR UPDATE} of them) and then
 * deletes none. Used on H2 and on PostgreSQL (where the rows a subquery joined are kept for the re-check). A waiting delete that skips a row whose newest committed version still matches is what no
 * reading of committed data gives — the shape of H2's real defect (h2-rc-waiting-update-skips-rekeyed-row) — so a rule that
 * explains waiting writes by a re-check must leave it a bug candidate. Serial replays (one session at a time) never meet the
 * fault. The wrapped target belongs to the caller.
 */
public final class WaitingDeleteSkipsRowTarget extends DelegatingTarget {
    private static final Pattern DELETE = Pattern.compile("(?is)\\s*DELETE\\s+FROM\\s+(\\w+)\\s+WHERE\\s+(.+?)\\s*;?\\s*");

    public WaitingDeleteSkipsRowTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with a waiting DELETE that deletes nothing";
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
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                Matcher m = DELETE.matcher(sql);
                if (m.matches() && writes.heldBesides(session)) {
                    try (Statement lock = c.createStatement()) {
                        lock.executeQuery("SELECT * FROM " + m.group(1) + " WHERE " + m.group(2) + " FOR UPDATE").close();
                    }
                    args = args.clone();
                    args[0] = "DELETE FROM " + m.group(1) + " WHERE (" + m.group(2) + ") AND 1 = 0"; // the injected bug
                }
            }
            return invoke(s, method, args);
        });
    }
}
