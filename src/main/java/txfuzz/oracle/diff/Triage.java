package txfuzz.oracle.diff;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;

/**
 * Labels a confirmed divergence from evidence txfuzz checked (issue 23 item 3):
 * <ul>
 *   <li>a subject whose own oracles report a bug candidate at the divergent statement, while the other's do not, is the
 *       bug candidate's subject (between two versions of one engine, the other version says whether it was
 *       fixed or came later);</li>
 *   <li>two versions of one engine with the same settings: a behaviour change (documented) only when each version's
 *       run keeps its own level's promise; a version whose own oracles report a bug candidate anywhere in the case, or
 *       that breaks a rule its level promises on its own run (a serial replay result, reads in commit order), is a bug
 *       candidate naming that version, whatever the other version did (issue 33 rule 8: a wrong result in one version
 *       is not a behaviour change);</li>
 *   <li>both clean or documented: other engines, modes or settings → compatibility issue, with its cause and each
 *       side's documentation;</li>
 *   <li>identical subjects, both clean, that diverged twice: not comparable (nothing to attribute);</li>
 *   <li>both flagged: a bug candidate of both.</li>
 * </ul>
 * With no own oracle flagging the divergent statement, a subject that breaks a rule both subjects' levels promise
 * (same serial replay result, serializable-in-commit-order reads, first-committer-wins) where the other keeps it is
 * a bug candidate too ({@link PromisedRules}).
 */
public final class Triage {
    private Triage() {
    }

    public static Triaged triage(TestCase c, Divergence d, Side left, SideRun leftRun, Side right, SideRun rightRun) {
        return triage(c, d, left, leftRun, right, rightRun, null);
    }

    /**
     * @param serial the two subjects compared on the case's transactions run one after another (in the order the
     *               first side ended them), or null when not run: a serial run that shows the same divergence
     *               proves the cause is the statement's meaning, not concurrency
     */
    public static Triaged triage(TestCase c, Divergence d, Side left, SideRun leftRun, Side right, SideRun rightRun, Comparison serial) {
        return triage(c, d, left, leftRun, right, rightRun, serial, null);
    }

    /**
     * @param promised the rules both subjects' levels promise, checked ({@link PromisedRules}) when neither side's own
     *                 oracles flag the divergent statement; null: not checked
     */
    public static Triaged triage(TestCase c, Divergence d, Side left, SideRun leftRun, Side right, SideRun rightRun, Comparison serial,
                                 PromisedRules promised) {
        boolean sameWithoutConcurrency = serial != null && serial.status() == Comparison.Status.DIVERGE && serial.divergence().sameAs(d);
        Cause named = cause(c, d, leftRun.trace(), rightRun.trace());
        // abort scope is named from the errors themselves, and needs no concurrency either; "no concurrent transaction
        // involved" is claimed only when the serial run shows this divergence (not when it agrees, diverges otherwise
        // or cannot be compared)
        Cause cause = sameWithoutConcurrency && named != Cause.ABORT_SCOPE ? Cause.SQL_SEMANTICS
                : serial != null && named == Cause.SQL_SEMANTICS ? Cause.UNEXPLAINED : named;
        Map<String, String> refs = new LinkedHashMap<>();
        refs.put(left.label(), left.reference());
        refs.put(right.label(), right.reference());
        List<String> evidence = new ArrayList<>();
        evidence.add("Both subjects ran the case twice in its submitted order and diverged the same way both times: " + d + ".");
        if (serial != null) {
            evidence.add(sameWithoutConcurrency ? "Run one transaction after another, the subjects diverge the same way: no concurrency is needed."
                    : serial.status() == Comparison.Status.AGREE ? "Run one transaction after another, the subjects agree: the divergence needs concurrency."
                    : "Run one transaction after another: " + (serial.status() == Comparison.Status.DIVERGE ? serial.divergence().toString()
                    : "not comparable (" + serial.reason() + ")") + ".");
        }
        // a side is the culprit only when its own oracles flag the divergent statement (or the final state it
        // diverged in): a bug candidate elsewhere in the case does not explain this divergence
        boolean sameEngine = left.engine().equals(right.engine());
        boolean sameSettings = Objects.equals(left.settings(), right.settings()) && left.level() == right.level();
        // two versions of one engine: the divergence is a documented behaviour change only when each run keeps its own
        // level's promise, so a version whose own oracles report a bug candidate anywhere in the case is a culprit
        boolean versions = sameEngine && sameSettings && !left.version().equals(right.version());
        List<Violation> lb = left.bugCandidates().stream().filter(v -> versions || at(v, c, d)).toList();
        List<Violation> rb = right.bugCandidates().stream().filter(v -> versions || at(v, c, d)).toList();
        for (Side s : List.of(left, right)) {
            List<Violation> own = s.bugCandidates();
            String oracles = String.join(", ", s.own().stream().map(v -> v.oracle()).toList());
            evidence.add(own.isEmpty() ? s.label() + "'s own oracles (" + oracles + ") report no bug candidate."
                    : s.label() + "'s own oracles report " + own.size() + " bug candidate" + (own.size() == 1 ? "" : "s") + ": "
                    + String.join("; ", own.stream().map(v -> v.summary() + (at(v, c, d) ? " (at the divergent statement)" : "")).toList()) + ".");
        }
        // DT2's second way: with no own oracle flagging it, a side that breaks a rule both levels promise, the other keeping it
        PromisedRules.Outcome byRules = lb.isEmpty() && rb.isEmpty() && promised != null
                ? promised.check(c, d, left, leftRun, right, rightRun, versions) : new PromisedRules.Outcome(List.of(), List.of());
        evidence.addAll(byRules.evidence());
        byRules.breaks().forEach(b -> evidence.add(b.sentence()));
        if (versions) {
            for (Side s : List.of(left, right)) {
                List<Violation> own = s == left ? lb : rb;
                if (own.stream().anyMatch(v -> !at(v, c, d))) {
                    evidence.add(s.label() + "'s own oracles report a bug candidate away from the divergent statement: between two versions of one"
                            + " engine a divergence is a behaviour change only when each version's run keeps its own level's promise, and "
                            + s.label() + "'s does not.");
                }
            }
        }
        boolean leftBad = !lb.isEmpty() || byRules.brokeLeft();
        boolean rightBad = !rb.isEmpty() || byRules.brokeRight();
        if (leftBad || rightBad) {
            List<String> culprits = new ArrayList<>();
            if (leftBad) {
                culprits.add(left.label());
            }
            if (rightBad) {
                culprits.add(right.label());
            }
            String change = null;
            if (culprits.size() == 1 && sameEngine && sameSettings) {
                Side bad = leftBad ? left : right;
                Side good = leftBad ? right : left;
                int newer = Versions.compare(good.version(), bad.version());
                change = newer > 0 ? "fixed in " + good.label() : newer < 0 ? "not in " + good.label() + " (a regression)" : null;
            }
            return new Triaged(Label.BUG_CANDIDATE, culprits, cause, change, evidence, refs);
        }
        if (sameEngine && sameSettings) {
            if (left.version().equals(right.version())) {
                evidence.add("The subjects are the same engine, version and settings: nothing to attribute the divergence to.");
                return new Triaged(Label.NOT_COMPARABLE, List.of(), cause, null, evidence, refs);
            }
            return new Triaged(Label.BEHAVIOUR_CHANGE, List.of(), cause, null, evidence, refs);
        }
        evidence.add("Cause: " + cause.meaning() + ".");
        return new Triaged(Label.COMPATIBILITY, List.of(), cause, null, evidence, refs);
    }

    /** Whether {@code v} is about the divergent statement (its identity or its SQL names it), or the divergence is the final state. */
    static boolean at(Violation v, TestCase c, Divergence d) {
        if (d.at() == null) {
            return true;
        }
        boolean byRef = v.evidence().identity().map(i -> i.statements().contains(d.at())).orElse(false);
        return byRef || v.evidence().deviatingSql().contains(c.stmt(d.at()).sql());
    }

    /** The cause, named from what the traces show. */
    static Cause cause(TestCase c, Divergence d, Trace left, Trace right) {
        return switch (d.kind()) {
            // one side failing the second writer at once (first committer wins, e.g. MariaDB's 1020 with
            // innodb_snapshot_isolation=ON) where the other made it wait: the difference is the write conflict
            case BLOCKING -> (errorAt(d.at(), left) == ErrorClass.SERIALIZATION) != (errorAt(d.at(), right) == ErrorClass.SERIALIZATION)
                    ? Cause.WRITE_CONFLICT : Cause.BLOCKING_MODEL;
            case ABORT -> abortCause(d.at(), left, right);
            case ONE_SIDED -> endedByAnErrorBothSidesSaw(d.at(), left, right) ? Cause.ABORT_SCOPE : Cause.UNEXPLAINED;
            case ERROR -> inFailedTransaction(d.at(), left, right) ? Cause.ABORT_SCOPE : Cause.SQL_SEMANTICS;
            case ROWS, AFFECTED -> waited(d.at(), left) || waited(d.at(), right) || concurrentCommitBefore(d.at(), left)
                    || concurrentCommitBefore(d.at(), right) ? Cause.SNAPSHOT_POINT : Cause.SQL_SEMANTICS;
            case STATE -> Cause.UNEXPLAINED;
        };
    }

    /**
     * Whether the side that did not run {@code at} had ended its transaction at an error that the other side saw
     * too, at the same statement, and carried on after: the error's scope differs.
     */
    private static boolean endedByAnErrorBothSidesSaw(StmtRef at, Trace left, Trace right) {
        Trace without = left.executed(at).isPresent() ? right : left;
        Trace with = without == left ? right : left;
        TxnOutcome end = without.outcome(at.txn());
        if (end == null || end.status() != txfuzz.exec.TxnStatus.ABORTED || end.cause() == null) {
            return false;
        }
        ErrorClass there = errorAt(end.cause(), without);
        return there != null && there == errorAt(end.cause(), with);
    }

    private static Cause abortCause(StmtRef at, Trace left, Trace right) {
        ErrorClass l = errorAt(at, left);
        ErrorClass r = errorAt(at, right);
        boolean deadlockHere = l == ErrorClass.DEADLOCK || r == ErrorClass.DEADLOCK;
        if (deadlockHere) {
            return deadlockElsewhere(at, l == ErrorClass.DEADLOCK ? right : left) ? Cause.DEADLOCK_VICTIM : Cause.BLOCKING_MODEL;
        }
        return Cause.WRITE_CONFLICT;
    }

    private static ErrorClass errorAt(StmtRef at, Trace t) {
        return t.executed(at).map(e -> e.result().errorClass()).orElse(null);
    }

    private static boolean deadlockElsewhere(StmtRef at, Trace t) {
        return t.schedule().stream().anyMatch(e -> !e.ref().equals(at) && e.result().errorClass() == ErrorClass.DEADLOCK);
    }

    /** Whether the statement waited for a lock: what it saw once it resumed depends on where the engine reads from then. */
    private static boolean waited(StmtRef at, Trace t) {
        return t.executed(at).map(ExecutedStmt::blocked).orElse(false);
    }

    private static boolean inFailedTransaction(StmtRef at, Trace left, Trace right) {
        return errorAt(at, left) == ErrorClass.IN_FAILED_TRANSACTION || errorAt(at, right) == ErrorClass.IN_FAILED_TRANSACTION;
    }

    /** Whether another transaction ended with a commit before {@code at} completed on this side. */
    private static boolean concurrentCommitBefore(StmtRef at, Trace t) {
        int pos = t.position(at);
        if (pos < 0) {
            return false;
        }
        for (Map.Entry<Integer, TxnOutcome> e : t.outcomes().entrySet()) {
            if (e.getKey() == at.txn() || !e.getValue().status().committed() || e.getValue().cause() == null) {
                continue;
            }
            int end = t.position(e.getValue().cause());
            if (end >= 0 && end < pos && startedBefore(t, at.txn(), end)) {
                return true;
            }
        }
        return false;
    }

    /** Whether transaction {@code txn} had run a statement at or before position {@code pos} (it was open then). */
    private static boolean startedBefore(Trace t, int txn, int pos) {
        for (int i = 0; i <= pos && i < t.schedule().size(); i++) {
            ExecutedStmt e = t.schedule().get(i);
            if (e.ref().txn() == txn) {
                return true;
            }
        }
        return false;
    }
}
