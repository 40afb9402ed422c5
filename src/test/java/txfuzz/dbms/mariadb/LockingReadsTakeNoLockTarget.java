package txfuzz.dbms.mariadb;

import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;

/**
 * Fault injection for REPEATABLE READ's locking reads (issue 33 rule 2): real MariaDB that runs {@code SELECT … FOR UPDATE}
 * and {@code … LOCK IN SHARE MODE} without their locking clause, so they read the transaction's read view and lock nothing —
 * against "Other transactions are blocked from updating those rows" (MySQL manual, Locking Reads). txfuzz still records
 * them as the locking reads it sent, so only a model in which a locking read's anti-dependency can never be followed by the
 * reader's own later write (a lost update after FOR UPDATE) catches it. The wrapped target belongs to the caller.
 */
final class LockingReadsTakeNoLockTarget extends DelegatingTarget {
    private static final Pattern LOCKING_CLAUSE = Pattern.compile("(?i)\\s+(FOR\\s+UPDATE|LOCK\\s+IN\\s+SHARE\\s+MODE)\\s*;?\\s*$");

    LockingReadsTakeNoLockTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with locking reads that take no lock";
    }

    @Override
    public void close() {
        // the wrapped target is the caller's
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return wrappingStatements(real.freshDatabase(), (c, s) -> (Statement) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Statement.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                        args = args.clone();
                        args[0] = LOCKING_CLAUSE.matcher(sql).replaceFirst(""); // the injected bug
                    }
                    return invoke(s, method, args);
                }));
    }
}
