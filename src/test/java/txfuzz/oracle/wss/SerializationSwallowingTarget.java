package txfuzz.oracle.wss;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Target;
import txfuzz.model.IsolationLevel;

/**
 * Fault injection for the first-committer-wins rule: a real engine whose write that fails with a
 * serialization error is instead rolled back and run again in a fresh transaction on the newest
 * data, and reported as succeeded — an engine that lets the later writer win, as InnoDB's
 * REPEATABLE READ does, at a level that documents first-committer-wins. Serial runs never meet the
 * error, so they are unaffected; the final state equals a serial replay's, so only a check of the
 * rule itself can catch it.
 */
final class SerializationSwallowingTarget extends DelegatingTarget {

    SerializationSwallowingTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with serialization failures swallowed";
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return wrappingStatements(real.freshDatabase(), this::swallowing);
    }

    private Statement swallowing(Connection c, Statement s) {
        Statement[] current = {s}; // some drivers (DuckDB's) close a statement that raised an error
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class},
                (proxy, method, args) -> {
                    try {
                        return invoke(current[0], method, args);
                    } catch (SQLException e) {
                        if (!method.getName().startsWith("execute") || !real.classify(e).isConcurrencyConflict()) {
                            throw e;
                        }
                        // the injected bug: the transaction starts over on the newest data, unreported
                        real.rollback(c);
                        real.begin(c);
                        if (current[0].isClosed()) {
                            current[0] = c.createStatement();
                        }
                        return invoke(current[0], method, args);
                    }
                });
    }
}
