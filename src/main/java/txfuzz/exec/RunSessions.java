package txfuzz.exec;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import txfuzz.dbms.Database;
import txfuzz.dbms.Target;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * The sessions of one run, one per transaction. In a serial run whose statements keep nothing in their session but their
 * data ({@link #shareable}), a transaction that begins when an earlier one's session at its level is free runs on that
 * session, as it would on a new one: opening a session is a connection, a query or two and a hand-back (a server's
 * round trips), and a statement-level replay has one transaction per statement.
 */
final class RunSessions {
    private final Target target;
    private final Database db;
    private final TestCase testCase;
    private final boolean shared;
    private final List<Session> opened = new ArrayList<>();
    private final Map<IsolationLevel, Session> byLevel = new HashMap<>();
    private final List<Trace.RefusedSetting> refused = new ArrayList<>();

    RunSessions(Target target, Database db, TestCase testCase, boolean serial) {
        this.target = target;
        this.db = db;
        this.testCase = testCase;
        this.shared = serial && shareable(testCase);
    }

    /** Whether sessions are handed from one transaction to the next (opened as transactions begin), not opened one each before the run. */
    boolean shared() {
        return shared;
    }

    /**
     * Whether a transaction of {@code c} runs on an earlier transaction's session as on a new one: no statement reads a value
     * of its session (the key generated last, a user variable) or is of a kind that may leave one (SET, SAVEPOINT, DDL ...),
     * and no transaction has session settings of its own (an imported one's may last for one transaction only).
     */
    static boolean shareable(TestCase c) {
        return c.transactions().stream().allMatch(t -> t.settings().isEmpty() && t.statements().stream().noneMatch(Stmt::dependsOnSession));
    }

    /** A session for {@code t}: a free one of its level where sessions are shared, else a new one with {@code t}'s settings run on it. */
    Session sessionFor(Txn t) throws SQLException {
        IsolationLevel level = t.levelIn(testCase);
        if (shared) {
            Session free = byLevel.get(level);
            if (free != null && free.freeForAnotherTransaction()) {
                return free;
            }
        }
        Connection c = db.connect(level, testCase.mode());
        Session session;
        try {
            session = new Session(target, c, db.sessionId(c), testCase.execution());
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        opened.add(session);
        for (String setting : t.settings()) {
            session.setting(setting).ifPresent(error -> refused.add(new Trace.RefusedSetting(t.id(), setting, error)));
        }
        if (shared) {
            byLevel.put(level, session);
        }
        return session;
    }

    /** Every session opened, each once. */
    List<Session> all() {
        return opened;
    }

    /** The settings the engine refused, by transaction. */
    List<Trace.RefusedSetting> refused() {
        List<Trace.RefusedSetting> out = new ArrayList<>(refused);
        out.sort(Comparator.comparingInt(Trace.RefusedSetting::txn));
        return out;
    }
}
