package txfuzz.oracle.wss;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Optional;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;

/**
 * Fault injection for the visibility rules of lock-based levels (statement visibility, dirty reads): a real engine whose
 * UPDATE or DELETE, submitted inside a transaction while another session holds an uncommitted write, does not wait for that
 * session's row locks and overwrites its uncommitted rows — a dirty write (Adya's G0, which every level down to READ
 * UNCOMMITTED proscribes). It is run on the holder's own connection: it sees the holder's uncommitted data, never waits for
 * it, and its change is then kept by the holder's commit and undone by its rollback, as a dirty write under a before-image
 * undo is. A simulation in which writes see uncommitted (or only committed) data and apply in the order they ran reproduces
 * the final state; only the rule that lock-based writers wait keeps it a bug candidate. Serial replays (one session at a
 * time) never meet the fault. The wrapped target belongs to the caller.
 */
final class DirtyWriteTarget extends DelegatingTarget {
    DirtyWriteTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with a write that overwrites another transaction's uncommitted row without waiting";
    }

    @Override
    public void close() {
        // the wrapped target is the caller's
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return trackingUncommittedWrites(real.freshDatabase(), this::overwriting);
    }

    private Statement overwriting(Connection c, Object session, Statement s, UncommittedWrites writes) {
        Statement[] answering = {null}; // the holder's statement that ran the last dirty write: it answers for its results
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            String name = method.getName();
            if (name.startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                closeQuietly(answering[0]);
                answering[0] = null;
                Optional<Object> holder = writes.holderBesides(session);
                if (holder.isPresent() && !c.getAutoCommit() && changesRows(sql)) {
                    // the injected bug: written in the holder's transaction, through its locks
                    answering[0] = ((Connection) holder.get()).unwrap(Connection.class).createStatement();
                    return invoke(answering[0], method, args);
                }
                return invoke(s, method, args);
            }
            if (name.equals("close")) {
                closeQuietly(answering[0]);
                return invoke(s, method, args);
            }
            return invoke(answering[0] != null ? answering[0] : s, method, args);
        });
    }

    private static boolean changesRows(String sql) {
        String head = sql.stripLeading().toUpperCase(Locale.ROOT);
        return head.startsWith("UPDATE") || head.startsWith("DELETE");
    }

    private static void closeQuietly(Statement s) {
        try {
            if (s != null) {
                s.close();
            }
        } catch (SQLException e) {
            // it answered already; nothing of the run depends on its close
        }
    }
}
