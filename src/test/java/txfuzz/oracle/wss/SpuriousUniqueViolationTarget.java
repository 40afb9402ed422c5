package txfuzz.oracle.wss;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;

/**
 * Fault injection for the unexplained-error rule (issue 33 item 3): a real engine whose INSERT, submitted inside a
 * transaction while another session of the same database holds an uncommitted write, fails with a unique-key violation
 * (SQLState 23505) without running — "a conflict where nothing conflicts". Serial replays (one session at a time) never
 * meet the fault, so there the INSERT runs as the engine runs it.
 *
 * <p>With {@code constraintAbortsTransaction}, a constraint error aborts the transaction (as PostgreSQL's and DuckDB's do),
 * so the executor rolls it back: on an engine where such an error ends only the statement (H2) the transaction would go
 * on and commit, and its failed INSERT would be compared as a write of a committed transaction. The wrapped target belongs
 * to the caller, who closes it.
 */
final class SpuriousUniqueViolationTarget extends DelegatingTarget {
    private final boolean constraintAbortsTransaction;
    private final boolean inject;

    private SpuriousUniqueViolationTarget(Target real, boolean inject, boolean constraintAbortsTransaction) {
        super(real);
        this.inject = inject;
        this.constraintAbortsTransaction = constraintAbortsTransaction;
    }

    /** {@code real} with the fault, and constraint errors aborting the transaction where {@code constraintAbortsTransaction}. */
    static SpuriousUniqueViolationTarget faulty(Target real, boolean constraintAbortsTransaction) {
        return new SpuriousUniqueViolationTarget(real, true, constraintAbortsTransaction);
    }

    /** {@code real} without the fault, constraint errors aborting the transaction: the negative control's engine. */
    static SpuriousUniqueViolationTarget abortingOnConstraintErrors(Target real) {
        return new SpuriousUniqueViolationTarget(real, false, true);
    }

    @Override
    public String version() {
        return real.version() + (inject ? " with a spurious unique violation beside an uncommitted write" : "")
                + (constraintAbortsTransaction ? ", constraint errors aborting the transaction" : "");
    }

    @Override
    public AbortScope abortScope(ErrorClass c) {
        return constraintAbortsTransaction && c == ErrorClass.CONSTRAINT ? AbortScope.TRANSACTION : real.abortScope(c);
    }

    @Override
    public void close() {
        // the wrapped target is the caller's (a shared server outlives the test)
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return inject ? trackingUncommittedWrites(real.freshDatabase(), this::failing) : real.freshDatabase();
    }

    private Statement failing(Connection c, Object session, Statement s, UncommittedWrites writes) {
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql
                    && !c.getAutoCommit() && sql.stripLeading().toUpperCase(Locale.ROOT).startsWith("INSERT") && writes.heldBesides(session)) {
                // the injected bug: nothing was run, so nothing is left to undo but what the transaction did before
                throw new SQLException("Unique index or primary key violation (injected by txfuzz's test)", "23505", 23505);
            }
            return invoke(s, method, args);
        });
    }
}
