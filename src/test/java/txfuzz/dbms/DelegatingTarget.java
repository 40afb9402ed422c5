package txfuzz.dbms;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import txfuzz.model.IsolationLevel;

/**
 * A target that passes every call to a real one; test wrappers (fault injection, recording)
 * override only what they change, so they can never forget to forward a semantics method.
 */
public abstract class DelegatingTarget implements Target {
    protected final Target real;

    protected DelegatingTarget(Target real) {
        this.real = real;
    }

    @Override
    public Engine engine() {
        return real.engine();
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public String version() {
        return real.version();
    }

    @Override
    public List<IsolationLevel> isolationLevels() {
        return real.isolationLevels();
    }

    @Override
    public List<String> modes() {
        return real.modes();
    }

    @Override
    public Dialect dialect() {
        return real.dialect();
    }

    @Override
    public Profile profile() {
        return real.profile();
    }

    @Override
    public Profile profile(String mode) {
        return real.profile(mode);
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return real.freshDatabase();
    }

    @Override
    public ErrorClass classify(SQLException e) {
        return real.classify(e);
    }

    @Override
    public AbortScope abortScope(ErrorClass c) {
        return real.abortScope(c);
    }

    @Override
    public void begin(Connection c) throws SQLException {
        real.begin(c);
    }

    @Override
    public void commit(Connection c) throws SQLException {
        real.commit(c);
    }

    @Override
    public void rollback(Connection c) throws SQLException {
        real.rollback(c);
    }

    @Override
    public void dropKeyConstraints(Connection c) throws SQLException {
        real.dropKeyConstraints(c);
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        return real.sessionSetupSql(level, mode);
    }

    @Override
    public String beginSql(String mode) {
        return real.beginSql(mode);
    }

    @Override
    public java.util.List<String> beginVariants() {
        return real.beginVariants();
    }

    @Override
    public String quote(String identifier) {
        return real.quote(identifier);
    }

    @Override
    public void close() {
        real.close();
    }

    /** Makes a connection of the real engine into the one a wrapper hands out (a proxy that injects a fault). */
    @FunctionalInterface
    protected interface ConnectionWrapper {
        java.sql.Connection wrap(java.sql.Connection real) throws java.sql.SQLException;
    }

    /** {@code db}, with every connection passed through {@code wrap}; sessions, lock probe and close are forwarded. */
    protected static Database wrappingConnections(Database db, ConnectionWrapper wrap) {
        return new Database() {
            @Override
            public java.sql.Connection connect(IsolationLevel level, String mode) throws java.sql.SQLException {
                return wrap.wrap(db.connect(level, mode));
            }

            @Override
            public String sessionId(java.sql.Connection c) throws java.sql.SQLException {
                return db.sessionId(c);
            }

            @Override
            public java.util.Optional<LockProbe> lockProbe() throws java.sql.SQLException {
                return db.lockProbe();
            }

            @Override
            public void close() {
                db.close();
            }
        };
    }

    /** Makes a statement of the real engine into the one a wrapper hands out; {@code connection} is the real one it came from. */
    @FunctionalInterface
    protected interface StatementWrapper {
        java.sql.Statement wrap(java.sql.Connection connection, java.sql.Statement real);
    }

    /**
     * {@code db}, with every statement a connection creates ({@code createStatement}) passed through
     * {@code wrap}: the usual shape of a fault injected into what the engine returns.
     */
    protected static Database wrappingStatements(Database db, StatementWrapper wrap) {
        return wrappingConnections(db, c -> (java.sql.Connection) java.lang.reflect.Proxy.newProxyInstance(DelegatingTarget.class.getClassLoader(),
                new Class<?>[] {java.sql.Connection.class}, (proxy, method, args) -> {
                    Object r = invoke(c, method, args);
                    return method.getName().equals("createStatement") ? wrap.wrap(c, (java.sql.Statement) r) : r;
                }));
    }

    /** {@code method} on {@code target}, throwing what it threw (not the reflection wrapper): for the proxies of fault injection. */
    protected static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
