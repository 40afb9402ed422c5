package txfuzz.dbms.mariadb;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;
import txfuzz.model.IsolationLevel;

/**
 * Fault injection for REPEATABLE READ's read view (issue 33 rule 2): real MariaDB whose plain {@code SELECT … FROM}, after the
 * first one of a transaction, runs on a second connection of the same database in autocommit, so it reads the newest
 * committed rows instead of the transaction's read view — a consistent read that is not repeatable, which InnoDB's
 * REPEATABLE READ does not allow ("all consistent reads within the same transaction read the snapshot established by the
 * first such read in that transaction"). Locking reads and writes are left alone, so the fault is in the plain read only.
 * The wrapped target belongs to the caller.
 */
final class PlainReadsSeeNewestTarget extends DelegatingTarget {
    /** A SELECT that reads a table and takes no lock (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE). */
    private static final Pattern PLAIN_READ = Pattern.compile("(?is)\\s*SELECT\\b(?!.*\\b(FOR\\s+UPDATE|FOR\\s+SHARE|LOCK\\s+IN\\s+SHARE\\s+MODE)\\b).*\\bFROM\\b.*");

    PlainReadsSeeNewestTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with a transaction's later plain SELECTs reading the newest committed rows";
    }

    @Override
    public void close() {
        // the wrapped target is the caller's
    }

    @Override
    public Database freshDatabase() throws SQLException {
        Database db = real.freshDatabase();
        return wrappingConnections(db, c -> session(db, c));
    }

    /** The session's connection: counts its transaction's plain reads and sends the second and later to a side connection. */
    private static Connection session(Database db, Connection c) {
        int[] plainReads = {0};
        Connection[] side = {null};
        return (Connection) Proxy.newProxyInstance(PlainReadsSeeNewestTarget.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    String name = method.getName();
                    if (name.equals("commit") || name.equals("rollback") || name.equals("setAutoCommit")) {
                        plainReads[0] = 0;
                    }
                    if (name.equals("close") && side[0] != null) {
                        side[0].close();
                    }
                    Object r = invoke(c, method, args);
                    if (!name.equals("createStatement")) {
                        return r;
                    }
                    Statement own = (Statement) r;
                    Statement[] answering = {own};
                    return Proxy.newProxyInstance(PlainReadsSeeNewestTarget.class.getClassLoader(), new Class<?>[] {Statement.class},
                            (sp, m, a) -> {
                                if (m.getName().startsWith("execute") && a != null && a.length > 0 && a[0] instanceof String sql) {
                                    if (answering[0] != own) {
                                        answering[0].close();
                                    }
                                    answering[0] = own;
                                    if (!c.getAutoCommit() && PLAIN_READ.matcher(sql).matches() && plainReads[0]++ > 0) {
                                        if (side[0] == null) {
                                            side[0] = db.connect(IsolationLevel.READ_COMMITTED, null);
                                            side[0].setAutoCommit(true);
                                        }
                                        answering[0] = side[0].createStatement(); // the injected bug
                                    }
                                }
                                if (m.getName().equals("close") && answering[0] != own) {
                                    answering[0].close();
                                }
                                return invoke(m.getName().equals("close") ? own : answering[0], m, a);
                            });
                });
    }
}
