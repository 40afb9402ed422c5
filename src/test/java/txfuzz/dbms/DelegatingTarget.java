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

    /** What a marked statement does instead of running (see {@link #marked}). */
    @FunctionalInterface
    protected interface MarkedExecution {
        Object run() throws Throwable;
    }

    /**
     * {@code s}, except that an execute of SQL containing {@code mark} runs {@code instead} rather than the engine's
     * statement, and {@code cancel()} runs {@code onCancel} rather than reaching the engine: one statement of a case that
     * hangs, or ends, in a way a test chooses.
     */
    protected static java.sql.Statement marked(java.sql.Statement s, String mark, Runnable onCancel, MarkedExecution instead) {
        return (java.sql.Statement) java.lang.reflect.Proxy.newProxyInstance(DelegatingTarget.class.getClassLoader(),
                new Class<?>[] {java.sql.Statement.class}, (proxy, method, args) -> {
                    if (method.getName().equals("cancel")) {
                        onCancel.run();
                        return null;
                    }
                    if (method.getName().startsWith("execute") && args != null && String.valueOf(args[0]).contains(mark)) {
                        return instead.run();
                    }
                    return invoke(s, method, args);
                });
    }

    /** {@code method} on {@code target}, throwing what it threw (not the reflection wrapper): for the proxies of fault injection. */
    protected static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * Which sessions of one database hold an uncommitted write: a fault that strikes only beside one never strikes in a serial
     * replay or a simulation (one session at a time), as a real concurrency bug would not.
     */
    protected static final class UncommittedWrites {
        private final java.util.Set<Object> holders = java.util.concurrent.ConcurrentHashMap.newKeySet();

        /** Whether a session other than {@code session} holds an uncommitted write. */
        public boolean heldBesides(Object session) {
            return holders.stream().anyMatch(o -> o != session);
        }

        /** A session other than {@code session} that holds an uncommitted write (the connection the wrapper handed out), if any. */
        public java.util.Optional<Object> holderBesides(Object session) {
            return holders.stream().filter(o -> o != session).findFirst();
        }
    }

    /** Makes a statement of the real engine into the one a fault-injecting wrapper hands out, told who holds uncommitted writes. */
    @FunctionalInterface
    protected interface FaultBesideUncommittedWrites {
        /**
         * @param connection the real connection the statement came from
         * @param session    the connection the wrapper handed out (what {@link UncommittedWrites#heldBesides} compares)
         */
        java.sql.Statement wrap(java.sql.Connection connection, Object session, java.sql.Statement real, UncommittedWrites writes);
    }

    /**
     * {@code db}, with every statement passed through {@code fault} and the uncommitted writes of its sessions tracked: a write
     * (INSERT, UPDATE, DELETE, MERGE) that succeeds inside a transaction makes its session a holder until COMMIT, ROLLBACK,
     * close or autocommit on. The fault asks {@link UncommittedWrites#heldBesides} before it runs a statement.
     */
    protected static Database trackingUncommittedWrites(Database db, FaultBesideUncommittedWrites fault) {
        UncommittedWrites writes = new UncommittedWrites();
        return wrappingConnections(db, c -> (java.sql.Connection) java.lang.reflect.Proxy.newProxyInstance(DelegatingTarget.class.getClassLoader(),
                new Class<?>[] {java.sql.Connection.class}, (session, method, args) -> {
                    String name = method.getName();
                    if (name.equals("commit") || name.equals("rollback") || name.equals("close")
                            || name.equals("setAutoCommit") && Boolean.TRUE.equals(args[0])) {
                        writes.holders.remove(session);
                    }
                    Object r = invoke(c, method, args);
                    return name.equals("createStatement") ? recordingWrites(c, session, fault.wrap(c, session, (java.sql.Statement) r, writes), writes) : r;
                }));
    }

    private static java.sql.Statement recordingWrites(java.sql.Connection c, Object session, java.sql.Statement s, UncommittedWrites writes) {
        return (java.sql.Statement) java.lang.reflect.Proxy.newProxyInstance(DelegatingTarget.class.getClassLoader(),
                new Class<?>[] {java.sql.Statement.class}, (proxy, method, args) -> {
                    Object r = invoke(s, method, args);
                    if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql
                            && isWrite(sql) && !c.getAutoCommit()) {
                        writes.holders.add(session);
                    }
                    return r;
                });
    }

    /** Whether {@code sql} is a data change: INSERT, UPDATE, DELETE or MERGE. */
    protected static boolean isWrite(String sql) {
        String head = sql.stripLeading().toUpperCase(java.util.Locale.ROOT);
        return head.startsWith("UPDATE") || head.startsWith("INSERT") || head.startsWith("DELETE") || head.startsWith("MERGE");
    }
}
