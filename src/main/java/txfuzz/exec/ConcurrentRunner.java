package txfuzz.exec;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import txfuzz.model.DbState;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Target;

/**
 * IsoRel's execution mode (ISSTA 2025 §3, step ⑤): a few sessions (connections), each running its
 * transactions one after another, all sessions truly concurrently, with no control over the
 * interleaving. Transaction {@code i} goes to session {@code (i-1) % sessions}, and a session runs its
 * transactions in id order; {@link ConcurrentRun#slots()} records that assignment (the session order).
 *
 * <p><b>Transactions.</b> An explicit transaction (BEGIN … COMMIT/ROLLBACK) runs as in the controlled
 * {@link Executor}: an error whose {@link Target#abortScope abort scope} is the transaction (deadlock,
 * serialization failure, SQLITE_BUSY, 25P02 …) ends it as {@link TxnStatus#ABORTED}; the session sends
 * ROLLBACK, skips the transaction's remaining statements and goes on with its next transaction. A
 * statement-level error (constraint, data) leaves the transaction running. A failing COMMIT is an
 * abort, learnt from the engine. An autocommit transaction (one statement, as generated cases contain)
 * runs as a one-statement transaction in the session's autocommit mode: committed unless it failed
 * with a concurrency conflict or an engine failure.
 *
 * <p><b>Lost connections.</b> A statement failing with {@link ErrorClass#CONNECTION_LOST} aborts its
 * transaction (a COMMIT that lost its connection may in fact have committed: the reason says
 * "outcome unknown"; {@link TxnStatus} has no such status). The session then opens a new connection
 * (same session number: it is the same client) and goes on; if the engine refuses, the session stops
 * and its remaining transactions are recorded as {@link TxnStatus#ABORTED} with the reason
 * "never ran", caused by their BEGIN (or only statement), at the end of {@code endOrder}.
 *
 * <p><b>Waits, stalls and hangs.</b> Nothing waits on a fixed sleep. The calling thread watches the
 * statements in flight: one that has run for a couple of milliseconds is shown to the target's
 * {@link LockProbe}, and {@link ExecutedStmt#blocked()} records whether the probe saw it wait for a
 * lock. A statement that neither finishes nor waits on a lock for the configured statement timeout is
 * cancelled ({@link Statement#cancel()}; if that is ignored the connection is aborted; if that is ignored
 * too the statement is abandoned and its session stops) and recorded in {@link Trace#hung()}. Targets
 * without a probe (SQLite at busy_timeout 0, DuckDB) never wait, so for them a statement running past
 * the statement timeout plus the stall timeout is hung. When every statement in flight waits on a lock,
 * one of them has waited for the stall timeout and no statement anywhere completed meanwhile, the
 * engine has not broken a cycle: the most recently sent such statement is cancelled and counted in {@link Trace#stalls()}. Either way
 * its transaction ends as ABORTED and the run always finishes.
 *
 * <p><b>The trace.</b> {@code schedule}: statements in the global order in which their sessions saw
 * them complete (the order of the clients, not necessarily the engine's). For a concurrent run the
 * fields of {@link ExecutedStmt} mean: {@code blocked} — the lock probe saw the statement waiting
 * (always false on targets without a probe); {@code submitSeq} — global order in which sessions sent
 * statements; {@code completedBefore} — statements at schedule positions below it had completed when
 * it was sent (so they precede it in real time); {@code resumedWith} — always -1 (there are no
 * resumption sweeps). {@code outcomes} has every transaction, {@code endOrder} lists them in the order
 * their ends were recorded, {@code finalState} is read on a fresh session after every session stopped.
 */
public final class ConcurrentRunner implements AutoCloseable {
    /** A statement in flight this long is shown to the lock probe. */
    private static final long PROBE_AFTER_NANOS = 2_000_000;
    /** How often the watchdog looks at the statements in flight (it wakes at once when the run ends). */
    private static final long WATCH_MILLIS = 2;

    private final Target target;
    private final ExecutorConfig config;
    private final ExecutorService pool;

    public ConcurrentRunner(Target target, ExecutorConfig config) {
        this.target = target;
        this.config = config;
        this.pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "txfuzz-concurrent-session");
            t.setDaemon(true);
            return t;
        });
    }

    public Target target() {
        return target;
    }

    /**
     * Runs {@code c}'s transactions on {@code sessions} connections of one fresh database; transaction
     * i goes to session (i-1) % sessions, in id order within a session.
     */
    public ConcurrentRun run(TestCase c, int sessions) throws SetupFailedException, SQLException {
        try (Database db = target.freshDatabase()) {
            return run(c, sessions, db);
        }
    }

    /** As {@link #run(TestCase, int)}, on {@code db}, which must be empty. */
    public ConcurrentRun run(TestCase c, int sessions, Database db) throws SetupFailedException, SQLException {
        if (sessions < 1) {
            throw new IllegalArgumentException("sessions must be >= 1, not " + sessions);
        }
        if (c.transactions().stream().anyMatch(t -> !t.settings().isEmpty() || t.isolation() != null)) {
            // its sessions run many transactions each: a transaction's own session settings or level would leak into the next
            throw new IllegalArgumentException("the concurrent runner runs cases whose transactions have no session settings or levels of their own");
        }
        CaseSetup.load(c, db, target);
        Run run = new Run(c, db, sessions);
        try {
            run.open();
            run.execute();
            DbState state;
            try (Connection conn = db.connect(c.isolation(), c.mode())) {
                state = StateReader.read(target, conn, c.tables());
            }
            return new ConcurrentRun(run.trace(state), run.slots);
        } finally {
            run.close();
        }
    }

    /** The session (0-based) and position of every transaction of {@code c} when run on {@code sessions} sessions. */
    public static Map<Integer, SessionSlot> slots(TestCase c, int sessions) {
        Map<Integer, SessionSlot> slots = new LinkedHashMap<>();
        int[] next = new int[sessions];
        for (Txn t : c.transactions()) {
            int s = (t.id() - 1) % sessions;
            slots.put(t.id(), new SessionSlot(s, next[s]++));
        }
        return slots;
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }

    /** Why the watchdog cancelled a statement. */
    private enum Victim { HUNG, STALL }

    /** One statement a session has sent and not yet recorded. */
    private static final class InFlight {
        final StmtRef ref;
        final int submitSeq;
        final int completedBefore;
        final long started;
        /** Set by whoever records the statement first: its session, or the watchdog giving up on it. */
        final AtomicBoolean claimed = new AtomicBoolean();
        volatile boolean blocked;
        volatile Victim victim;
        /** Watchdog-only state. */
        long lastSeenWaiting;
        long waitingSince;
        /** The engine's answers while it ran, for a hang's evidence (watchdog-only). */
        int probes;
        int probesWaiting;
        long firstProbe;
        long lastProbe;
        String lastAnswer = "never asked";
        final java.util.LinkedHashSet<String> activities = new java.util.LinkedHashSet<>();

        HangEvidence evidence(String error) {
            return new HangEvidence(probes, probesWaiting, (lastProbe - firstProbe) / 1_000_000, lastAnswer, List.copyOf(activities), error);
        }
        long cancelledAt;
        long abortedAt;

        InFlight(StmtRef ref, int submitSeq, int completedBefore, long now) {
            this.ref = ref;
            this.submitSeq = submitSeq;
            this.completedBefore = completedBefore;
            this.started = now;
            this.lastSeenWaiting = now;
        }
    }

    /** One concurrent run: the sessions, what they recorded, and the watchdog. */
    private final class Run {
        private final TestCase testCase;
        private final Database db;
        private final Map<Integer, SessionSlot> slots;
        private final List<Worker> workers = new ArrayList<>();
        private final CountDownLatch finished;
        private LockProbe probe;

        // Guarded by this Run.
        private final List<ExecutedStmt> schedule = new ArrayList<>();
        private final Map<Integer, TxnOutcome> outcomes = new HashMap<>();
        private final List<Integer> endOrder = new ArrayList<>();
        private final List<StmtRef> hung = new ArrayList<>();
        private final Map<StmtRef, HangEvidence> hangEvidence = new HashMap<>();
        private final List<Integer> neverRan = new ArrayList<>();
        private int stalls;
        private int submitSeq;
        private volatile long lastProgress;
        private volatile Throwable crashed;

        Run(TestCase testCase, Database db, int sessions) {
            this.testCase = testCase;
            this.db = db;
            this.slots = slots(testCase, sessions);
            List<List<Txn>> perSession = new ArrayList<>();
            for (int s = 0; s < sessions; s++) {
                perSession.add(new ArrayList<>());
            }
            for (Txn t : testCase.transactions()) {
                perSession.get(slots.get(t.id()).session()).add(t);
            }
            for (int s = 0; s < sessions; s++) {
                if (!perSession.get(s).isEmpty()) {
                    workers.add(new Worker(this, s, perSession.get(s)));
                }
            }
            finished = new CountDownLatch(workers.size());
        }

        /** Opens every session before any starts, so they all start together. */
        void open() throws SQLException {
            for (Worker w : workers) {
                w.connect();
            }
            probe = db.lockProbe().orElse(null);
        }

        void execute() {
            lastProgress = System.nanoTime();
            for (Worker w : workers) {
                pool.execute(w);
            }
            try {
                while (!finished.await(WATCH_MILLIS, TimeUnit.MILLISECONDS)) {
                    watch();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            if (crashed != null) {
                throw new IllegalStateException("a session of the concurrent run failed: " + crashed, crashed);
            }
        }

        synchronized Trace trace(DbState state) {
            for (int id : neverRan) {
                endOrder.add(id);
            }
            return new Trace(schedule, outcomes, endOrder, state, stalls, hung, hangEvidence);
        }

        void close() {
            for (Worker w : workers) {
                w.closeSession();
            }
            if (probe != null) {
                probe.close();
            }
        }

        // ---- recording (sessions and watchdog) ----

        synchronized InFlight send(StmtRef ref) {
            return new InFlight(ref, submitSeq++, schedule.size(), System.nanoTime());
        }

        synchronized void record(InFlight f, StmtResult result) {
            schedule.add(new ExecutedStmt(f.ref, result, f.blocked, f.submitSeq, f.completedBefore, -1));
            lastProgress = System.nanoTime();
        }

        synchronized void recordAndEnd(InFlight f, StmtResult result, TxnStatus status, String reason) {
            record(f, result);
            end(f.ref, status, reason);
        }

        synchronized void end(StmtRef cause, TxnStatus status, String reason) {
            outcomes.put(cause.txn(), new TxnOutcome(status, cause, reason));
            endOrder.add(cause.txn());
        }

        synchronized void hung(InFlight f, String error) {
            hung.add(f.ref);
            if (probe != null) {
                hangEvidence.put(f.ref, f.evidence(error));
            }
        }

        synchronized void neverRan(Txn t, String why) {
            outcomes.put(t.id(), new TxnOutcome(TxnStatus.ABORTED, new StmtRef(t.id(), 0), "never ran: " + why));
            neverRan.add(t.id());
        }

        // ---- the watchdog (the calling thread) ----

        private void watch() {
            long now = System.nanoTime();
            Worker stallVictim = null;
            InFlight stalled = null;
            // A stall is every statement in flight waiting, none of them being cancelled already.
            boolean allWaiting = true;
            for (Worker w : workers) {
                InFlight f = w.current;
                if (f == null || f.claimed.get()) {
                    continue;
                }
                if (f.victim != null) {
                    allWaiting = false;
                    escalate(w, f, now);
                    continue;
                }
                if (probe != null && now - f.started > PROBE_AFTER_NANOS) {
                    if (waiting(w, f, now)) {
                        f.blocked = true;
                        f.lastSeenWaiting = now;
                        if (f.waitingSince == 0) {
                            f.waitingSince = now;
                        }
                    } else {
                        f.waitingSince = 0;
                    }
                }
                long hangAfter = probe != null ? config.statementTimeout().toNanos()
                        : config.statementTimeout().plus(config.stallTimeout()).toNanos();
                if (now - f.lastSeenWaiting > hangAfter && probe != null && waitsByProcessList(w, f)) {
                    // the process list shows a lock wait the lock probe missed: waiting, not hung
                    f.blocked = true;
                    f.lastSeenWaiting = now;
                }
                if (now - f.lastSeenWaiting > hangAfter) {
                    allWaiting = false;
                    cancel(w, f, Victim.HUNG, now);
                    continue;
                }
                if (f.waitingSince == 0) {
                    allWaiting = false;
                }
                if (f.waitingSince != 0 && now - f.waitingSince > config.stallTimeout().toNanos()
                        && now - lastProgress > config.stallTimeout().toNanos()
                        && (stalled == null || f.submitSeq > stalled.submitSeq)) {
                    stallVictim = w;
                    stalled = f;
                }
            }
            if (allWaiting && stalled != null && !stalled.claimed.get()) {
                synchronized (this) {
                    stalls++;
                }
                cancel(stallVictim, stalled, Victim.STALL, now);
            }
        }

        private boolean waiting(Worker w, InFlight f, long now) {
            try {
                Optional<Set<String>> waits = probe.waitsFor(w.engineId);
                if (f.probes++ == 0) {
                    f.firstProbe = now;
                }
                f.lastProbe = now;
                f.lastAnswer = waits.map(b -> "waits for " + (b.isEmpty() ? "(unnamed)" : b)).orElse("not waiting");
                if (waits.isPresent()) {
                    f.probesWaiting++;
                }
                return waits.isPresent();
            } catch (SQLException | RuntimeException e) {
                f.lastAnswer = "the probe failed: " + e.getMessage();
                return false; // the probe could not tell: the statement counts as running
            }
        }

        /** The engine's process list, asked before a statement is called hung: a lock-wait state means it waits. */
        private boolean waitsByProcessList(Worker w, InFlight f) {
            try {
                Optional<String> activity = probe.activity(w.engineId);
                activity.ifPresent(a -> f.activities.add(a.isEmpty() ? "(no state)" : a));
                return activity.isPresent() && probe.activityWaits(activity.get());
            } catch (SQLException | RuntimeException e) {
                return false;
            }
        }

        private void cancel(Worker w, InFlight f, Victim why, long now) {
            f.victim = why;
            f.cancelledAt = now;
            // a stalled statement waits for a lock; a hung one does not, and is only cancelled (its hang stands)
            w.session.cancel(why == Victim.STALL && target.engine().lockWaitEndsOnInterrupt());
        }

        /** The cancel was ignored: abort the connection; if that is ignored too, give the statement up. */
        private void escalate(Worker w, InFlight f, long now) {
            if (f.abortedAt == 0 && now - f.cancelledAt > graceNanos(1)) {
                f.abortedAt = now;
                w.reconnect = true; // the abort closes the connection on a thread of its own: do not race it
                w.session.abortConnection();
            } else if (f.abortedAt != 0 && now - f.abortedAt > graceNanos(1.5)) {
                w.abandon(f);
            }
        }

        /** How long a cancel (factor 1) or a connection abort (1.5) may take: the statement timeout, within 0.2–2 s. */
        private long graceNanos(double factor) {
            long base = Math.max(200_000_000L, Math.min(2_000_000_000L, config.statementTimeout().toNanos()));
            return (long) (base * factor);
        }
    }

    /** One session: runs its transactions one after another on its own thread. */
    private final class Worker implements Runnable {
        private final Run run;
        private final int index;
        private final List<Txn> txns;
        private final AtomicBoolean done = new AtomicBoolean();
        private Connection connection;
        private volatile Session session;
        private volatile String engineId;
        private volatile InFlight current;
        /** The connection is lost, or the watchdog aborted it: open a new one before the next transaction. */
        private volatile boolean reconnect;
        /** The watchdog gave up on a statement of this session: it stops, its thread may stay stuck. */
        private volatile boolean abandoned;
        private int next;

        Worker(Run run, int index, List<Txn> txns) {
            this.run = run;
            this.index = index;
            this.txns = txns;
        }

        void connect() throws SQLException {
            Connection c = run.db.connect(run.testCase.isolation(), run.testCase.mode());
            try {
                engineId = run.db.sessionId(c);
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
            connection = c;
            session = new Session(target, c, engineId, run.testCase.execution());
        }

        @Override
        public void run() {
            try {
                while (next < txns.size() && !abandoned) {
                    Txn t = txns.get(next++);
                    if (!runTxn(t)) {
                        return;
                    }
                    if (!abandoned && (reconnect || connectionGone()) && !reconnect(t)) {
                        return;
                    }
                }
            } catch (Throwable e) {
                run.crashed = e;
                stop("session " + index + " failed: " + e);
            } finally {
                finish();
            }
        }

        /** Runs one transaction to its end; false when the watchdog abandoned this session meanwhile. */
        private boolean runTxn(Txn t) {
            List<Stmt> stmts = t.statements();
            for (int i = 0; i < stmts.size(); i++) {
                Stmt stmt = stmts.get(i);
                InFlight f = run.send(new StmtRef(t.id(), i));
                current = f;
                StmtResult result = session.execute(stmt);
                if (!f.claimed.compareAndSet(false, true)) {
                    return false; // the watchdog recorded it as abandoned
                }
                current = null;
                if (result.failed() && result.errorClass() == ErrorClass.CONNECTION_LOST) {
                    reconnect = true;
                }
                if (complete(t, stmt, f, result)) {
                    return true;
                }
            }
            return true;
        }

        /** Records a completed statement; true when it ended the transaction. */
        private boolean complete(Txn t, Stmt stmt, InFlight f, StmtResult result) {
            Victim victim = f.victim;
            if (victim == Victim.HUNG && result.failed() && result.errorClass().isConcurrencyConflict()) {
                // The engine ended it with a deadlock or lock-wait error while txfuzz was cancelling it:
                // it was waiting (a victim whose wait the probe missed), not hung.
                run.recordAndEnd(f, result, TxnStatus.ABORTED, result.errorClass() + " at " + f.ref);
                if (t.explicit()) {
                    session.rollbackQuietly();
                }
                return true;
            }
            if (victim != null && result.failed()) {
                if (victim == Victim.HUNG) {
                    run.hung(f, String.valueOf(result.error()));
                }
                run.recordAndEnd(f, result, TxnStatus.ABORTED, victim == Victim.HUNG
                        ? "cancelled by txfuzz at " + f.ref + ": the statement ran for over "
                                + ExecutorConfig.shortText(config.statementTimeout()) + " without waiting on a lock"
                        : "cancelled by txfuzz at " + f.ref + ": it waited over " + ExecutorConfig.shortText(config.stallTimeout())
                                + " and the engine did not break the cycle");
                if (t.explicit()) {
                    session.rollbackQuietly();
                }
                return true;
            }
            // A cancel that came too late (the statement had finished) changes nothing: recorded as it happened.
            ErrorClass error = result.errorClass();
            if (!t.explicit()) {
                boolean aborted = result.failed() && (error.isConcurrencyConflict() || error.isEngineFailure());
                run.recordAndEnd(f, result, aborted ? TxnStatus.ABORTED : TxnStatus.COMMITTED,
                        aborted ? error + " at " + f.ref : "autocommit");
                return true;
            }
            if (stmt.kind() == StmtKind.COMMIT) {
                if (result.failed()) {
                    run.recordAndEnd(f, result, TxnStatus.ABORTED, "COMMIT failed: " + error
                            + (error == ErrorClass.CONNECTION_LOST ? " (outcome unknown: the engine may have committed)" : ""));
                    session.rollbackQuietly();
                } else {
                    run.recordAndEnd(f, result, TxnStatus.COMMITTED, "COMMIT");
                }
                return true;
            }
            if (stmt.kind() == StmtKind.ROLLBACK) {
                run.recordAndEnd(f, result, TxnStatus.ROLLED_BACK, "ROLLBACK");
                return true;
            }
            if (result.failed() && target.abortScope(error) == AbortScope.TRANSACTION) {
                run.recordAndEnd(f, result, TxnStatus.ABORTED, error + " at " + f.ref);
                session.rollbackQuietly();
                return true;
            }
            run.record(f, result);
            return false;
        }

        /** After a transaction: is the connection closed (lost, or aborted by the watchdog)? */
        private boolean connectionGone() {
            try {
                return connection.isClosed();
            } catch (SQLException | RuntimeException e) {
                return true;
            }
        }

        private boolean reconnect(Txn after) {
            reconnect = false;
            session.close();
            try {
                connect();
                return true;
            } catch (SQLException | RuntimeException e) {
                stop("session " + index + " lost its connection after T" + after.id() + " and could not reconnect: "
                        + e.getMessage());
                return false;
            }
        }

        /** The watchdog gives up on {@code f}: cancel and connection abort were both ignored. */
        void abandon(InFlight f) {
            if (!f.claimed.compareAndSet(false, true)) {
                return; // it finished after all
            }
            abandoned = true;
            if (f.victim == Victim.HUNG) {
                run.hung(f, null);
            }
            run.recordAndEnd(f, StmtResult.failed(new StmtResult.EngineError(ErrorClass.OTHER, null, 0,
                    "abandoned: cancel and abort were ignored")), TxnStatus.ABORTED,
                    "cancelled by txfuzz at " + f.ref + " (" + (f.victim == Victim.HUNG ? "hung" : "stalled")
                            + "), but the engine ignored cancel and connection abort: abandoned");
            stop("session " + index + " was abandoned at " + f.ref);
            finish();
        }

        /** The session stops: its transactions not yet started never run. */
        private synchronized void stop(String why) {
            while (next < txns.size()) {
                run.neverRan(txns.get(next++), why);
            }
        }

        private void finish() {
            if (done.compareAndSet(false, true)) {
                run.finished.countDown();
            }
        }

        void closeSession() {
            Session s = session;
            if (s == null) {
                return;
            }
            if (abandoned) {
                s.abortConnection(); // its statement may still hold the connection: never wait for it
            } else {
                s.close();
            }
        }
    }
}
