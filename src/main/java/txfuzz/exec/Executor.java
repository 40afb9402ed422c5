package txfuzz.exec;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * The transaction execution protocol (WriteCheck Alg. 1, DT2 Alg. 1): one session per transaction,
 * statements submitted one by one in the submitted order, a blocked statement holds back the rest
 * of its transaction, and after every completion the blocked statements are checked for
 * resumption. Blocking is learnt from the engine's lock probe, not from a timeout.
 */
public final class Executor implements AutoCloseable {
    private final Target target;
    private final ExecutorConfig config;
    private final ExecutorService pool;
    /** False for a view made by {@link #withConfig}: the pool is its maker's to shut down. */
    private final boolean ownsPool;

    /** The settings it runs with. */
    public ExecutorConfig config() {
        return config;
    }

    public Executor(Target target, ExecutorConfig config) {
        // A session thread a statement held (a lock wait the engine never ends, cancelled and given up) goes back to
        // the pool once the statement ends; idle ones leave after a few seconds rather than a cached pool's minute, so
        // the thread count follows the threads in use (bench --soak reads it).
        this(target, config, new java.util.concurrent.ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE_SESSION_THREAD_SECONDS,
                TimeUnit.SECONDS, new java.util.concurrent.SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "txfuzz-session");
            t.setDaemon(true);
            return t;
        }), true);
    }

    private Executor(Target target, ExecutorConfig config, ExecutorService pool, boolean ownsPool) {
        this.target = target;
        this.config = config;
        this.pool = pool;
        this.ownsPool = ownsPool;
    }

    /**
     * This executor with other settings, sharing its session threads (closing the view leaves them to this one) but not
     * its kept serial runs, which were judged with these settings.
     */
    public Executor withConfig(ExecutorConfig other) {
        return new Executor(target, other, pool, false);
    }

    private static final long IDLE_SESSION_THREAD_SECONDS = 5;

    public Target target() {
        return target;
    }

    /** How many serial runs it keeps: those of the case being judged, which its oracles ask for more than once. */
    private static final int SERIAL_RUNS_KEPT = 32;
    /** The serial runs it made last, by case, least recently asked for first. */
    private final Map<TestCase, Trace> serialRuns = new java.util.LinkedHashMap<>(SERIAL_RUNS_KEPT * 2, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<TestCase, Trace> eldest) {
            return size() > SERIAL_RUNS_KEPT;
        }
    };

    /**
     * Runs {@code serial}, a case whose transactions run one after another (a serial replay), once: the oracles of a
     * judged run ask for the same replay several times (each serial order's comparison, the aborting errors' check, a
     * deviation's simulation, the headline's order search), and with no other transaction to wait for the engine's
     * answer is the same every time. A run that hung or stalled is not kept.
     *
     * @throws IllegalArgumentException when a transaction of {@code serial} is interleaved with another: a concurrent
     *                                  case must run every time it is asked
     */
    public Trace runSerial(TestCase serial) throws SetupFailedException, SQLException {
        if (!isSerial(serial.order())) {
            throw new IllegalArgumentException("not a serial case: its transactions interleave (" + serial.order() + ")");
        }
        synchronized (serialRuns) {
            Trace known = serialRuns.get(serial);
            if (known != null) {
                return known;
            }
        }
        Trace run = run(serial);
        if (run.hung().isEmpty() && run.stalls() == 0) {
            synchronized (serialRuns) {
                serialRuns.put(serial, run);
            }
        }
        return run;
    }

    /** Forgets the serial runs it made: the next verdict replays afresh (a confirming one, say). */
    public void forgetSerialRuns() {
        synchronized (serialRuns) {
            serialRuns.clear();
        }
    }

    /** Whether every transaction's statements are submitted one after another, none between them. */
    static boolean isSerial(List<Integer> order) {
        Set<Integer> ended = new java.util.HashSet<>();
        Integer current = null;
        for (int txn : order) {
            if (current != null && current == txn) {
                continue;
            }
            if (!ended.add(txn)) {
                return false;
            }
            current = txn;
        }
        return true;
    }

    /** Runs {@code testCase} on a fresh database of the target. */
    public Trace run(TestCase testCase) throws SetupFailedException, SQLException {
        try (Database db = target.freshDatabase()) {
            return run(testCase, db);
        }
    }

    /** Runs {@code testCase} on {@code db}, which must be empty. */
    public Trace run(TestCase testCase, Database db) throws SetupFailedException, SQLException {
        CaseSetup.load(testCase, db, target);
        RunSessions sessions = new RunSessions(target, db, testCase, isSerial(testCase.order()));
        LazyLockProbe probe = new LazyLockProbe(db);
        try {
            Run run = new Run(testCase, sessions, probe);
            run.execute();
            awaitBackgroundRollbacks(sessions.all());
            DbState state;
            try (Connection c = db.connect(testCase.isolation(), testCase.mode())) {
                state = StateReader.read(target, c, testCase.tables());
            }
            return new Trace(run.schedule, run.outcomes, run.endOrder, state, run.stalls, run.hung, run.hangEvidence, sessions.refused());
        } finally {
            sessions.all().forEach(Session::close);
            probe.close();
        }
    }

    /** Lets rollbacks of cancelled transactions finish (a little while at most) before the final state is read. */
    private static void awaitBackgroundRollbacks(java.util.Collection<Session> sessions) {
        try {
            CompletableFuture.allOf(sessions.stream().map(Session::backgroundRollback)
                    .toArray(CompletableFuture[]::new)).get(3, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // a rollback still stuck after 3 s: read the state anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (ownsPool) {
            pool.shutdownNow();
        }
    }

    private enum Settled { DONE, BLOCKED }

    /** Probe answers, all "not waiting", a statement needs over the statement timeout before it is called hung. */
    static final int MIN_HANG_PROBES = 5;
    /** How long a released blocker's doubtful waits do not count: long enough for a loaded machine to finish a rollback. */
    private static final long RELEASED_BLOCKER_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /**
     * After the engine's deadlock detection, how long its victim's error may take to reach the executor: a loaded
     * machine's scheduling delay, many times over what it is on an idle one.
     */
    private static final java.time.Duration DEADLOCK_VICTIM_GRACE = java.time.Duration.ofMillis(250);
    /**
     * How long a statement of a serial run may take before the lock probe is opened: opening it costs a connection and a
     * prepared query (a sixth of an H2 serial replay's CPU samples in a profile), and a statement slower than the first poll is common
     * there, a wait never expected. A statement that does wait is seen this much later, as on any run.
     */
    static final long SERIAL_PROBE_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How many times over the statement timeout the process list is asked about a statement not seen waiting. */
    static final int ACTIVITY_SAMPLES = 4;

    /** The state of one run of the protocol. */
    private final class Run {
        private final TestCase testCase;
        private final RunSessions sessions;
        private final LazyLockProbe lockProbe;
        /** Each transaction's statements one after another: a statement can wait only on something outside the run. */
        private final boolean serial;
        private final Map<Integer, TxnState> txns = new HashMap<>();
        private final Map<String, Integer> txnOfSession = new HashMap<>();
        final List<ExecutedStmt> schedule = new ArrayList<>();
        final Map<Integer, TxnOutcome> outcomes = new HashMap<>();
        final List<Integer> endOrder = new ArrayList<>();
        final List<StmtRef> hung = new ArrayList<>();
        final Map<StmtRef, HangEvidence> hangEvidence = new HashMap<>();
        int stalls;
        private int submitSeq;
        private int sweeps;
        private int currentSweep = -1;

        Run(TestCase testCase, RunSessions sessions, LazyLockProbe lockProbe) throws SQLException {
            this.testCase = testCase;
            this.sessions = sessions;
            this.lockProbe = lockProbe;
            this.serial = isSerial(testCase.order());
            for (Txn t : testCase.transactions()) {
                TxnState state = new TxnState(t);
                txns.put(t.id(), state);
                if (!sessions.shared()) {
                    state.open(); // every session before the run: opening one must not fall between two statements
                }
            }
        }

        void execute() throws SQLException {
            List<StmtRef> order = testCase.submittedOrder();
            boolean[] submitted = new boolean[order.size()];
            while (true) {
                boolean restart = false;
                boolean submittedAny = false;
                for (int i = 0; i < order.size() && !restart; i++) {
                    if (submitted[i]) {
                        continue;
                    }
                    StmtRef ref = order.get(i);
                    TxnState t = txns.get(ref.txn());
                    if (t.ended) {
                        submitted[i] = true; // an aborted transaction's remaining statements never run
                        continue;
                    }
                    if (t.inFlight != null) {
                        continue; // blocked: holds back the rest of its transaction
                    }
                    submitted[i] = true;
                    submittedAny = true;
                    t.submit(ref);
                    if (settle(t) == Settled.BLOCKED) {
                        t.blocked = true;
                        continue;
                    }
                    // The submitted statement comes first: a waiter it released may finish before the
                    // call returns to us (a COMMIT wakes its waiters), so finishing times do not order them.
                    complete(t);
                    restart = resumeBlocked() > 0;
                }
                if (restart) {
                    continue;
                }
                boolean anyInFlight = txns.values().stream().anyMatch(t -> t.inFlight != null);
                if (!anyInFlight && allTrue(submitted)) {
                    return;
                }
                if (!submittedAny && anyInFlight) {
                    breakStall();
                }
            }
        }

        /** Waits until the statement in flight on {@code t} has finished, or the engine says it waits on a lock. */
        private Settled settle(TxnState t) throws SQLException {
            long start = System.nanoTime();
            long pollNanos = 50_000;
            int waitSightings = 0;
            while (true) {
                try {
                    t.inFlight.get(pollNanos, TimeUnit.NANOSECONDS);
                    return Settled.DONE;
                } catch (TimeoutException notYet) {
                    pollNanos = Math.min(pollNanos * 2, 2_000_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                } catch (ExecutionException e) {
                    return Settled.DONE; // Session catches everything; complete() reports it
                }
                long now = System.nanoTime();
                if (serial && now - start < SERIAL_PROBE_GRACE_NANOS) {
                    continue; // no other transaction is live to wait for: a slow statement, not yet worth a probe
                }
                LockProbe probe = lockProbe.get(); // opened only now: the statement has not answered
                if (probe == null) {
                    if (now - start > config.blockTimeout().toNanos()) {
                        return Settled.BLOCKED;
                    }
                    continue;
                }
                Optional<Set<String>> waits = probe.waitsFor(t.session.engineId());
                boolean onLive = waits.isPresent() && waitsOnLiveTransaction(waits.get());
                boolean waiting = onLive && !(now < t.waitsDoubtedUntil && t.doubtedBlockers.containsAll(waits.get()));
                t.noteProbe(now, waiting, waits, waits.isPresent() && !onLive ? transactionsOf(waits.get()) : List.of());
                if (!waiting && now - t.lastSeenWaiting > config.statementTimeout().toNanos() / ACTIVITY_SAMPLES
                        && now - t.lastActivityNanos > config.statementTimeout().toNanos() / ACTIVITY_SAMPLES) {
                    // Not seen waiting for a while: ask the process list too, a few times over the
                    // timeout. A thread in a lock-wait state waits, whatever the lock probe says.
                    t.lastActivityNanos = now;
                    Optional<String> activity = probe.activity(t.session.engineId());
                    activity.ifPresent(a -> t.activities.add(a.isEmpty() ? "(no state)" : a));
                    if (activity.isPresent() && probe.activityWaits(activity.get())) {
                        t.lastSeenWaiting = now;
                        return Settled.BLOCKED;
                    }
                }
                if (waiting) {
                    t.lastSeenWaiting = now;
                    // Seen twice in a row: a waiter that was released in between would have gone.
                    if (++waitSightings >= 2) {
                        return Settled.BLOCKED;
                    }
                } else {
                    waitSightings = 0;
                }
                if (now - t.lastSeenWaiting > config.statementTimeout().toNanos() && t.probesSinceLastWait >= MIN_HANG_PROBES) {
                    // the engine's last word before the verdict: the process list, asked now
                    Optional<String> activity = probe.activity(t.session.engineId());
                    activity.ifPresent(x -> t.activities.add(x.isEmpty() ? "(no state)" : x));
                    if (activity.isPresent() && probe.activityWaits(activity.get())) {
                        t.lastSeenWaiting = now;
                        return Settled.BLOCKED;
                    }
                    t.hung = true; // running, not waiting, for far too long: the stall handling cancels it
                    t.engineState = engineState(t);
                    return Settled.BLOCKED;
                }
            }
        }

        /**
         * What a maintainer asks for first about a hang, taken when txfuzz calls {@code t}'s statement hung:
         * for an in-process engine the stack of the thread running it (where the engine is busy), for every
         * engine what it shows of its sessions. Never fails the run: evidence that cannot be had is said so.
         */
        private String engineState(TxnState t) {
            StringBuilder out = new StringBuilder();
            if (!(txfuzz.dbms.Targets.exists(target.name()) && txfuzz.dbms.Targets.engine(target.name()).server())) {
                String stack = t.session.runningStack();
                if (!stack.isEmpty()) {
                    out.append("Stack of the thread running the statement:\n").append(stack).append("\n\n");
                }
            }
            try {
                lockProbe.get().engineState(t.session.engineId()).ifPresent(s -> out.append(s));
            } catch (SQLException | RuntimeException e) {
                out.append("(the engine's view of its sessions could not be read: ").append(e.getMessage()).append(')');
            }
            return out.length() == 0 ? null : out.toString().strip();
        }

        /** The numbers of our transactions behind the engine's session ids {@code blockers}, in order. */
        private List<Integer> transactionsOf(Set<String> blockers) {
            return blockers.stream().map(txnOfSession::get).filter(java.util.Objects::nonNull).sorted().toList();
        }

        /** False when every blocker the engine names is one of ours that has already ended: a stale answer. */
        private boolean waitsOnLiveTransaction(Set<String> blockers) {
            if (blockers.isEmpty()) {
                return true;
            }
            for (String b : blockers) {
                Integer txn = txnOfSession.get(b);
                // an ended blocker still counts while a background rollback is releasing its locks
                if (txn == null || !txns.get(txn).ended || txns.get(txn).session.rollingBack()) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Checks every statement in flight; completes those that finished, in the order they finished.
         * Returns how many completed.
         */
        private int resumeBlocked() throws SQLException {
            int completed = 0;
            while (true) {
                List<TxnState> finished = new ArrayList<>();
                for (TxnState t : txns.values()) {
                    if (t.inFlight != null && settle(t) == Settled.DONE) {
                        finished.add(t);
                    }
                }
                if (finished.isEmpty()) {
                    return completed;
                }
                for (TxnState t : finished) {
                    doubtWaitsOfBlockersOf(t);
                }
                // A blocker a finished statement waited for, and that was itself seen waiting for that statement's transaction,
                // closed a cycle: it is the deadlock victim whose rollback released the other, its error still on the way. Asked
                // now (as the next sweep would), it joins this sweep, and SweepOrder puts it first.
                for (TxnState x : txns.values()) {
                    if (x.inFlight != null && !finished.contains(x) && closedACycleWith(x, finished) && settle(x) == Settled.DONE) {
                        finished.add(x);
                    }
                }
                finished.sort(Comparator.comparingLong(TxnState::finishedNanos));
                if (finished.size() > 1) {
                    finished = SweepOrder.of(finished, x -> ending(x) != null,
                            (waiter, ender) -> waiter.lastNamedBlockers.contains(ender.session.engineId()));
                }
                currentSweep = finished.size() > 1 ? ++sweeps : -1;
                for (TxnState t : finished) {
                    complete(t);
                }
                currentSweep = -1;
                completed += finished.size();
            }
        }

        /** Whether {@code x} waited for a finished statement's transaction that waited for {@code x}. */
        private boolean closedACycleWith(TxnState x, List<TxnState> finished) {
            for (TxnState t : finished) {
                if (t.lastNamedBlockers.contains(x.session.engineId()) && x.lastNamedBlockers.contains(t.session.engineId())) {
                    return true;
                }
            }
            return false;
        }

        /**
         * A statement the engine saw waiting for named transactions has finished: those blockers let go
         * of locks. A blocker whose own statement in flight was seen waiting for the released one closed
         * a cycle, so it is the deadlock victim, rolling back and about to return; engines report the
         * victim still waiting (H2 keeps BLOCKER_ID) or waiting for an unnamed lock while it rolls back.
         * For a moment those two answers do not count as waiting, or the executor would move on and
         * record the victim's end after transactions that could run only once it had ended.
         */
        private void doubtWaitsOfBlockersOf(TxnState released) {
            long until = System.nanoTime() + RELEASED_BLOCKER_GRACE_NANOS;
            for (String blocker : released.lastNamedBlockers) {
                Integer txn = txnOfSession.get(blocker);
                if (txn != null && txns.get(txn).inFlight != null) {
                    txns.get(txn).waitsDoubtedUntil = until;
                    txns.get(txn).doubtedBlockers = Set.of(released.session.engineId());
                }
            }
        }

        /**
         * Every remaining transaction waits. Give the engine the stall timeout to break the cycle
         * (Derby detects deadlocks only after its deadlockTimeout); if it does not, cancel the most
         * recently blocked statement and abort its transaction.
         */
        private void breakStall() throws SQLException {
            boolean anyHung = txns.values().stream().anyMatch(t -> t.inFlight != null && t.hung);
            long deadline = anyHung ? 0 : System.nanoTime() + stallWait().toNanos();
            if (deadline > System.nanoTime()) {
                // wait for whichever statement finishes first, or the stall timeout
                try {
                    CompletableFuture.anyOf(txns.values().stream().filter(t -> t.inFlight != null).map(t -> t.inFlight)
                            .toArray(CompletableFuture[]::new)).get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                    resumeBlocked();
                    return;
                } catch (ExecutionException e) {
                    resumeBlocked(); // it finished, by failing
                    return;
                } catch (TimeoutException e) {
                    // nobody finished: the engine did not break the cycle. Unless every statement is still seen
                    // waiting (asked again now: one released meanwhile runs, and is waited for), the run goes on.
                    if (resumeBlocked() > 0) {
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            TxnState victim = txns.values().stream().filter(t -> t.inFlight != null)
                    .max(Comparator.comparing((TxnState t) -> t.hung).thenComparingInt(t -> t.inFlightSeq)).orElseThrow();
            stalls++;
            boolean interrupted = target.engine().lockWaitEndsOnInterrupt();
            victim.session.cancel(interrupted);
            victim.interrupted = interrupted;
            if (interrupted && !victim.hung) {
                // An interrupted lock wait ends at once; a waiter still running spins where the engine checks neither
                // (closing its connection would not end it either): give it up now, not seconds later. A hung
                // statement (running, not waiting) gets the cancel's and the abort's full time, as before.
                if (!awaitDone(victim, DEADLOCK_VICTIM_GRACE.toMillis())) {
                    abandon(victim, "abandoned: cancel and interrupt were ignored");
                }
            } else if (!awaitDone(victim, 2_000)) {
                victim.session.abortConnection();
                if (!awaitDone(victim, 3_000)) {
                    abandon(victim, "abandoned: cancel and abort were ignored");
                }
            }
            victim.stallVictim = true;
            resumeBlocked();
        }

        /** Gives up a statement the engine would not stop: it is recorded as failed with {@code why}; its thread stays stuck. */
        private void abandon(TxnState victim, String why) {
            victim.inFlight = CompletableFuture.completedFuture(new Session.Completed(
                    StmtResult.failed(new StmtResult.EngineError(ErrorClass.OTHER, null, 0, why)), System.nanoTime()));
        }

        /**
         * How long every transaction may wait before the run is called stalled: the engine's deadlock detection and a
         * grace for its victim's error to arrive, where the engine says when it detects (at most the stall timeout);
         * the stall timeout while a background rollback may still release locks by itself, or when the engine does not say.
         */
        private java.time.Duration stallWait() {
            java.util.Optional<java.time.Duration> detection = target.engine().deadlockDetectionDelay();
            if (detection.isEmpty() || sessions.all().stream().anyMatch(Session::rollingBackFreely)) {
                return config.stallTimeout();
            }
            java.time.Duration wait = detection.get().plus(DEADLOCK_VICTIM_GRACE);
            return wait.compareTo(config.stallTimeout()) < 0 ? wait : config.stallTimeout();
        }

        private boolean awaitDone(TxnState t, long millis) {
            try {
                t.inFlight.get(millis, TimeUnit.MILLISECONDS);
                return true;
            } catch (TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException e) {
                return true;
            }
        }

        /**
         * How the statement {@code t} finished ends its transaction, or null when the transaction goes on. One answer for
         * {@link #complete}, which records it, and for the sweep's order, which asks before the statement is recorded.
         */
        private TxnOutcome ending(TxnState t) {
            StmtRef ref = t.inFlightRef;
            StmtResult result = t.result().result();
            if (t.stallVictim && result.failed() && !(t.hung && engineEnded(t, result))) {
                return new TxnOutcome(TxnStatus.ABORTED, ref, t.hung
                        ? "cancelled by txfuzz at " + ref + ": the statement ran for over " + ExecutorConfig.shortText(config.statementTimeout())
                                + " without waiting on a lock"
                        : "cancelled by txfuzz at " + ref + ": every transaction waited and the engine did not break the cycle");
            }
            if (!t.txn.explicit()) {
                boolean aborted = result.failed() && (result.errorClass().isConcurrencyConflict() || result.errorClass().isEngineFailure());
                return new TxnOutcome(aborted ? TxnStatus.ABORTED : TxnStatus.COMMITTED, ref, aborted ? result.errorClass() + " at " + ref : "autocommit");
            }
            StmtKind kind = testCase.stmt(ref).kind();
            if (kind == StmtKind.COMMIT) {
                return result.failed() ? new TxnOutcome(TxnStatus.ABORTED, ref, "COMMIT failed: " + result.errorClass())
                        : new TxnOutcome(TxnStatus.COMMITTED, ref, "COMMIT");
            }
            if (kind == StmtKind.ROLLBACK) {
                return new TxnOutcome(TxnStatus.ROLLED_BACK, ref, "ROLLBACK");
            }
            if (result.failed() && target.abortScope(result.errorClass()) == AbortScope.TRANSACTION) {
                return new TxnOutcome(TxnStatus.ABORTED, ref, result.errorClass() + " at " + ref);
            }
            return null;
        }

        /**
         * A statement cancelled as hung that the engine ends with a deadlock or lock-wait error was waiting (the engine had
         * chosen it as a victim or was still deciding): a deadlock, not a hang. The lock timeout of a wait txfuzz interrupted
         * is txfuzz's cancel, not the engine's answer.
         */
        private static boolean engineEnded(TxnState t, StmtResult result) {
            return result.failed() && result.errorClass() != null && result.errorClass().isConcurrencyConflict()
                    && !(t.interrupted && result.errorClass() == ErrorClass.LOCK_TIMEOUT);
        }

        /** Records the finished statement and what it did to its transaction. */
        private void complete(TxnState t) {
            StmtRef ref = t.inFlightRef;
            StmtResult result = t.result().result();
            TxnOutcome ending = ending(t); // before the flags it reads change below
            if (t.stallVictim && !result.failed()) {
                // The cancel came too late: the statement had finished (an autocommit write is even
                // committed). It is recorded as it happened.
                t.stallVictim = false;
            }
            if (t.hung && t.stallVictim && engineEnded(t, result)) {
                t.hung = false;
                t.stallVictim = false;
            }
            if (t.hung && t.stallVictim) {
                hung.add(ref);
                hangEvidence.put(ref, t.evidence(result.failed() ? String.valueOf(result.error()) : null));
            }
            // A statement that overran the timeout but then finished by itself was waiting invisibly:
            // it is recorded as blocked, not hung.
            schedule.add(new ExecutedStmt(ref, result, t.blocked, t.inFlightSeq, t.inFlightCompletedBefore, currentSweep,
                    transactionsOf(t.lastNamedBlockers)));
            t.inFlight = null;
            t.blocked = false;
            t.hung = false;
            t.interrupted = false;
            if (ending == null) {
                return;
            }
            if (t.stallVictim) {
                t.session.rollbackInBackground();
                t.stallVictim = false;
            } else if (t.txn.explicit() && ending.status() == TxnStatus.ABORTED) {
                t.session.rollbackQuietly();
            }
            end(t, ending);
        }

        private void end(TxnState t, TxnOutcome outcome) {
            t.ended = true;
            outcomes.put(t.txn.id(), outcome);
            endOrder.add(t.txn.id());
        }

        private final class TxnState {
            final Txn txn;
            /** Opened before the run, or where sessions are shared when its first statement is submitted. */
            Session session;
            CompletableFuture<Session.Completed> inFlight;
            StmtRef inFlightRef;
            int inFlightSeq;
            int inFlightCompletedBefore;
            boolean blocked;
            boolean ended;
            boolean stallVictim;
            /** txfuzz interrupted the thread of the statement in flight to end its wait (a stall's victim). */
            boolean interrupted;
            boolean hung;
            /** When the probe last saw the statement in flight wait on a lock (or when it was submitted). */
            long lastSeenWaiting;
            /** The engine's answers about the statement in flight, for a hang's evidence. */
            int probes;
            int probesWaiting;
            int probesSinceLastWait;
            long firstProbeNanos;
            long lastProbeNanos;
            String lastAnswer = "never asked";
            long lastActivityNanos;
            /** Sessions the engine last named as holding the lock the statement in flight waits for. */
            Set<String> lastNamedBlockers = Set.of();
            /** Until then, a wait of the statement in flight for none but these sessions does not count as waiting. */
            long waitsDoubtedUntil;
            Set<String> doubtedBlockers = Set.of();
            final java.util.LinkedHashSet<String> activities = new java.util.LinkedHashSet<>();
            /** What the engine showed when the statement in flight was called hung (see {@link HangEvidence#engineState}). */
            String engineState;

            /** See {@link HangEvidence#endedBlockers}: from the last probe answer. */
            List<Integer> endedBlockers = List.of();

            void noteProbe(long now, boolean waiting, Optional<Set<String>> answer, List<Integer> ended) {
                endedBlockers = ended;
                if (probes++ == 0) {
                    firstProbeNanos = now;
                }
                lastProbeNanos = now;
                lastAnswer = answer.map(b -> "waits for " + (b.isEmpty() ? "(unnamed)" : b) + (waiting ? "" : ", all ended")).orElse("not waiting");
                if (waiting && !answer.get().isEmpty()) {
                    lastNamedBlockers = Set.copyOf(answer.get());
                }
                if (waiting) {
                    probesWaiting++;
                    probesSinceLastWait = 0;
                } else {
                    probesSinceLastWait++;
                }
            }

            HangEvidence evidence(String error) {
                return new HangEvidence(probes, probesWaiting, (lastProbeNanos - firstProbeNanos) / 1_000_000, lastAnswer,
                        List.copyOf(activities), error, engineState, endedBlockers);
            }

            TxnState(Txn txn) {
                this.txn = txn;
            }

            void open() throws SQLException {
                session = sessions.sessionFor(txn);
                txnOfSession.put(session.engineId(), txn.id());
            }

            void submit(StmtRef ref) throws SQLException {
                if (session == null) {
                    open();
                }
                engineState = null;
                inFlightRef = ref;
                inFlightSeq = submitSeq++;
                inFlightCompletedBefore = schedule.size();
                lastSeenWaiting = System.nanoTime();
                probes = 0;
                probesWaiting = 0;
                probesSinceLastWait = 0;
                lastAnswer = "never asked";
                lastActivityNanos = lastSeenWaiting;
                lastNamedBlockers = Set.of();
                endedBlockers = List.of();
                waitsDoubtedUntil = 0;
                doubtedBlockers = Set.of();
                activities.clear();
                inFlight = session.submit(testCase.stmt(ref), pool);
            }

            Session.Completed result() {
                try {
                    return inFlight.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                } catch (ExecutionException e) {
                    return new Session.Completed(StmtResult.failed(new StmtResult.EngineError(ErrorClass.INTERNAL, null, 0,
                            String.valueOf(e.getCause()))), System.nanoTime());
                }
            }

            long finishedNanos() {
                return result().finishedNanos();
            }
        }
    }

    private static boolean allTrue(boolean[] flags) {
        for (boolean f : flags) {
            if (!f) {
                return false;
            }
        }
        return true;
    }
}
