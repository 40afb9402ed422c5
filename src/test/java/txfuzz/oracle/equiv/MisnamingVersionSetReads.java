package txfuzz.oracle.equiv;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;

/**
 * Fault injection for the version-set read's own result: in a read of several tables, the rows of the last table read come
 * back led by a name that is none of the tables' ({@code 'tx'}), as an engine that returned a wrong literal through a
 * {@code UNION ALL} would. Every other statement, and the rows' other values, are the engine's own. The wrapped target
 * belongs to the caller, who closes it.
 */
final class MisnamingVersionSetReads extends DelegatingTarget {
    static final String WRONG_NAME = "tx";

    MisnamingVersionSetReads(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with version-set reads naming a table wrongly";
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return wrappingStatements(real.freshDatabase(), this::misnaming);
    }

    @Override
    public void close() {
        // the wrapped target is the caller's
    }

    private Statement misnaming(Connection c, Statement s) {
        String[] lastTable = {null};
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                int last = sql.lastIndexOf(" UNION ALL SELECT '");
                lastTable[0] = sql.startsWith("SELECT '") && last > 0
                        ? sql.substring(last + " UNION ALL SELECT '".length(), sql.indexOf('\'', last + " UNION ALL SELECT '".length())) : null;
            }
            Object r = invoke(s, method, args);
            if (method.getName().equals("getResultSet") && r != null && lastTable[0] != null) {
                return renaming((ResultSet) r, lastTable[0]);
            }
            return r;
        });
    }

    /** {@code rs}, whose first column gives {@link #WRONG_NAME} wherever the engine gave {@code table}. */
    private ResultSet renaming(ResultSet rs, String table) {
        return (ResultSet) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ResultSet.class}, (proxy, method, args) -> {
            Object r = invoke(rs, method, args);
            boolean firstColumn = args != null && args.length == 1 && Integer.valueOf(1).equals(args[0]);
            if (firstColumn && (method.getName().equals("getObject") || method.getName().equals("getString"))
                    && r != null && r.toString().stripTrailing().equals(table)) {
                return WRONG_NAME; // the injected bug
            }
            return r;
        });
    }
}
