package txfuzz.oracle.wss;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;

/**
 * A real engine that runs statement {@code from} as {@code to} where {@link When} says so: a fault injected into the run,
 * not into the replays and simulations that judge it. The test owns the real target (a shared server outlives it), so
 * closing this leaves it open.
 */
final class RewritingTarget extends DelegatingTarget {
    /** Whether this execution of the statement, on {@code connection}, is rewritten. */
    @FunctionalInterface
    interface When {
        boolean rewrites(Connection connection) throws SQLException;
    }

    private final String from;
    private final String to;
    private final String fault;
    private final When when;

    private RewritingTarget(Target real, String from, String to, String fault, When when) {
        super(real);
        this.from = from;
        this.to = to;
        this.fault = fault;
        this.when = when;
    }

    /** {@code from} runs as {@code to} inside a transaction (the run and the serial replays), never in autocommit (the simulations). */
    static RewritingTarget inTransactions(Target real, String from, String to) {
        return new RewritingTarget(real, from, to, "transactional '" + from + "' skips a row", c -> !c.getAutoCommit());
    }

    /** {@code from} runs as {@code to} the first time only: in the concurrent run, not in what judges it afterwards. */
    static RewritingTarget once(Target real, String from, String to) {
        AtomicBoolean done = new AtomicBoolean();
        return new RewritingTarget(real, from, to, "first '" + from + "' leaves a row out", c -> done.compareAndSet(false, true));
    }

    @Override
    public String version() {
        return real.version() + " whose " + fault;
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return wrappingStatements(real.freshDatabase(), this::rewriting);
    }

    @Override
    public void close() {
        // the test closes the real target
    }

    private Statement rewriting(Connection c, Statement s) {
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && from.equals(args[0]) && when.rewrites(c)) {
                args = args.clone();
                args[0] = to;
            }
            return invoke(s, method, args);
        });
    }
}
