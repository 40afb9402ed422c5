package txfuzz.oracle.wss;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;

/**
 * Fault injection for the rule that leaves SQLSTATE class 27 unjudged where a statement can start another command of its
 * own (a function or trigger): a real engine whose UPDATE, submitted inside a transaction while another session holds an
 * uncommitted write, fails with 27000 ("triggered data change violation") without running — though the UPDATE calls no
 * function, fires no trigger, and so has nothing that could have changed its row first. Serial replays (one session at a
 * time) never meet the fault. The wrapped target belongs to the caller.
 */
final class SpuriousTriggeredChangeTarget extends DelegatingTarget {
    SpuriousTriggeredChangeTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with a spurious triggered data change violation beside an uncommitted write";
    }

    @Override
    public void close() {
        // the wrapped target is the caller's (a shared server outlives the test)
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return trackingUncommittedWrites(real.freshDatabase(), this::failing);
    }

    private Statement failing(Connection c, Object session, Statement s, UncommittedWrites writes) {
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql
                    && !c.getAutoCommit() && sql.stripLeading().toUpperCase(Locale.ROOT).startsWith("UPDATE") && writes.heldBesides(session)) {
                // the injected bug, worded as the server words it; nothing ran, and the executor rolls the transaction back
                throw new SQLException("tuple to be updated was already modified by an operation triggered by the current command"
                        + " (injected by txfuzz's test)", "27000", 0);
            }
            return invoke(s, method, args);
        });
    }
}
