package txfuzz.oracle.pattern;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.exec.TxnStatus;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternCatalogue;
import txfuzz.gen.pattern.PatternFormatException;
import txfuzz.gen.pattern.PatternOp;
import txfuzz.history.History;
import txfuzz.history.Op;
import txfuzz.history.PredicateRead;
import txfuzz.history.Read;
import txfuzz.history.RowVersion;
import txfuzz.history.Transaction;
import txfuzz.history.WList;
import txfuzz.history.Write;
import txfuzz.history.WriteKind;
import txfuzz.model.PatternOrigin;
import txfuzz.model.StmtRef;
import txfuzz.model.Tracking;
import txfuzz.model.TrackedGroups;
import txfuzz.model.TestCase;
import txfuzz.oracle.HistoryRecorder;

/**
 * Whether a run realised the pattern its case was generated from: every step completed, in the
 * pattern's order, without waiting for a lock; each transaction ended as the pattern says; each
 * read saw the version the pattern names and each write was made on top of the version the pattern
 * says (the versions are {@link PatternVersions}', compared with what the run's history recorded at
 * the step's statement). A run that did not is the engine preventing the pattern (or not letting the
 * case perform it); the reason says how, in the first place it went otherwise.
 *
 * @param verdict    realised, not realised, or not checkable
 * @param reason     for the last two, why in plain words ("T2's UPDATE (W2[x1]) waited for a lock"); empty when realised
 * @param prevention for a run that did not realise it, how the engine prevented it (null otherwise)
 */
public record PatternRealisation(Verdict verdict, String reason, Prevention prevention) {
    public enum Verdict {
        REALISED, NOT_REALISED, NOT_CHECKABLE
    }

    /** How a run came not to realise its pattern, for counting. */
    public enum Prevention {
        WAITED("waited for a lock"),
        ABORTED("aborted by the engine"),
        FAILED("a statement failed"),
        OUT_OF_ORDER("completed out of order"),
        OUTCOME("ended otherwise"),
        OTHER_VERSION("read or wrote another version");

        private final String label;

        Prevention(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    public PatternRealisation(Verdict verdict, String reason) {
        this(verdict, reason, null);
    }

    public boolean realised() {
        return verdict == Verdict.REALISED;
    }

    static PatternRealisation notRealised(Prevention how, String reason) {
        return new PatternRealisation(Verdict.NOT_REALISED, reason, how);
    }

    static PatternRealisation notCheckable(String reason) {
        return new PatternRealisation(Verdict.NOT_CHECKABLE, reason);
    }

    @Override
    public String toString() {
        return switch (verdict) {
            case REALISED -> "realised";
            case NOT_REALISED -> "not realised: " + reason;
            case NOT_CHECKABLE -> "not checkable: " + reason;
        };
    }

    /**
     * Judges the run of {@code c} ({@code trace}) with the history recorded from it ({@code history},
     * e.g. {@code HistoryRecorder.record(run)}; null when the case has no row tracking).
     */
    public static PatternRealisation of(TestCase c, Trace trace, History history) {
        PatternOrigin origin = c.origin();
        if (origin == null) {
            return notCheckable("the case was not generated from a pattern");
        }
        Optional<AnomalyPattern> parsed = pattern(origin);
        if (parsed.isEmpty()) {
            return notCheckable("its pattern " + origin.pattern() + " '" + origin.ops() + "' cannot be read");
        }
        AnomalyPattern p = parsed.get();
        if (origin.steps().size() != p.ops().size()) {
            return notCheckable("the case names " + origin.steps().size() + " statements for the pattern's " + p.ops().size() + " operations");
        }
        for (String item : p.items()) {
            PatternOrigin.Item row = origin.items().get(item);
            if (row == null || row.rid() == null) {
                return notCheckable("item " + item + " has no tracked row (the case has no row tracking)");
            }
        }
        if (history == null) {
            return notCheckable("the run has no row-level history");
        }
        return new Check(c, p, origin, trace, history).run();
    }

    /** Judges a controlled run of {@code c}, recording its row history when the case tracks its items' rows. */
    public static PatternRealisation ofRun(TestCase c, Trace trace) {
        boolean tracked = c.origin() != null && !c.origin().items().isEmpty()
                && c.origin().items().values().stream().allMatch(i -> i.rid() != null);
        History h = tracked ? HistoryRecorder.record(c, trace) : null;
        return of(c, trace, h);
    }

    /** The bundled pattern of that name when its operations are the origin's, else the origin's operations as written. */
    private static Optional<AnomalyPattern> pattern(PatternOrigin origin) {
        Optional<AnomalyPattern> bundled = PatternCatalogue.bundled().byName(origin.pattern()).filter(p -> p.text().equals(origin.ops().trim()));
        if (bundled.isPresent()) {
            return bundled;
        }
        try {
            return Optional.of(AnomalyPattern.parse(origin.pattern(), origin.ops(), "none", ""));
        } catch (PatternFormatException e) {
            return Optional.empty();
        }
    }

    /** One judgement: the steps in order, then the outcomes, then the versions. */
    private static final class Check {
        private final TestCase c;
        private final AnomalyPattern p;
        private final PatternOrigin origin;
        private final Trace trace;
        private final History history;
        private final PatternVersions versions;
        /** Pattern transaction → the case's transaction that performs it. */
        private final Map<Integer, Integer> txnOf = new HashMap<>();

        Check(TestCase c, AnomalyPattern p, PatternOrigin origin, Trace trace, History history) {
            this.c = c;
            this.p = p;
            this.origin = origin;
            this.trace = trace;
            this.history = history;
            this.versions = PatternVersions.of(p);
            for (int i = 0; i < p.ops().size(); i++) {
                txnOf.putIfAbsent(p.ops().get(i).txn(), origin.steps().get(i).txn());
            }
        }

        PatternRealisation run() {
            int previous = -1;
            for (int i = 0; i < p.ops().size(); i++) {
                PatternOp op = p.ops().get(i);
                StmtRef step = origin.steps().get(i);
                if (step.txn() != txnOf.get(op.txn())) {
                    return notCheckable("the case performs T" + op.txn() + "'s operations in two transactions");
                }
                Optional<ExecutedStmt> ran = trace.executed(step);
                if (ran.isEmpty()) {
                    return notRealised(neverHow(step), never(op, step));
                }
                for (StmtRef part : group(step)) {
                    Optional<ExecutedStmt> e = trace.executed(part);
                    if (e.isEmpty()) {
                        return notRealised(neverHow(step), never(op, step));
                    }
                    if (e.get().blocked()) {
                        return notRealised(Prevention.WAITED, statement(op, step) + " waited for a lock" + (part.equals(step) ? "" : " (at its " + role(part) + ")"));
                    }
                    if (e.get().result().failed()) {
                        return notRealised(abortedAt(step, part) ? Prevention.ABORTED : Prevention.FAILED, failed(op, step, part, e.get().result()));
                    }
                }
                int at = trace.position(step);
                if (at < previous) {
                    return notRealised(Prevention.OUT_OF_ORDER, statement(op, step) + " completed before " + p.ops().get(i - 1) + " did");
                }
                previous = at;
            }
            for (int t : p.transactions()) {
                TxnOutcome o = trace.outcome(txnOf.get(t));
                boolean commits = p.commits(t);
                if (o == null) {
                    return notRealised(Prevention.OUTCOME, "T" + t + " never ended");
                }
                if (commits && o.status() != TxnStatus.COMMITTED) {
                    return notRealised(o.status() == TxnStatus.ABORTED ? Prevention.ABORTED : Prevention.OUTCOME, "T" + t + " did not commit: " + o.reason());
                }
                if (!commits && o.status() == TxnStatus.COMMITTED) {
                    return notRealised(Prevention.OUTCOME, "T" + t + " committed, but the pattern rolls it back");
                }
            }
            for (int i = 0; i < p.ops().size(); i++) {
                String wrong = versionMismatch(p.ops().get(i), origin.steps().get(i));
                if (wrong != null) {
                    return notRealised(Prevention.OTHER_VERSION, wrong);
                }
            }
            return new PatternRealisation(Verdict.REALISED, "");
        }

        private Prevention neverHow(StmtRef step) {
            TxnOutcome o = trace.outcome(step.txn());
            return o != null && o.status() == TxnStatus.ABORTED ? Prevention.ABORTED : Prevention.OUTCOME;
        }

        private boolean abortedAt(StmtRef step, StmtRef part) {
            TxnOutcome o = trace.outcome(step.txn());
            return o != null && o.status() == TxnStatus.ABORTED && part.equals(o.cause());
        }

        /** Why a step never ran: its transaction had ended (the engine aborted it), or the run stopped. */
        private String never(PatternOp op, StmtRef step) {
            TxnOutcome o = trace.outcome(step.txn());
            if (o != null && o.status() == TxnStatus.ABORTED) {
                return "T" + op.txn() + " was aborted by the engine before " + op + ": " + o.reason();
            }
            return statement(op, step) + " never ran";
        }

        private String failed(PatternOp op, StmtRef step, StmtRef part, StmtResult r) {
            StmtResult.EngineError err = r.error();
            String what = err.errorClass().name().toLowerCase(Locale.ROOT).replace('_', ' ') + " (" + firstLine(err.message()) + ")";
            String where = part.equals(step) ? "" : " (at its " + role(part) + ")";
            TxnOutcome o = trace.outcome(step.txn());
            if (o != null && o.status() == TxnStatus.ABORTED && part.equals(o.cause())) {
                return "T" + op.txn() + " was aborted by the engine at its " + kind(step) + " (" + op + ")" + where + ": " + what;
            }
            return statement(op, step) + " failed" + where + ": " + what;
        }

        /** The step's statement with the companions the instrumentation runs around it: any of them waiting is the step waiting. */
        private List<StmtRef> group(StmtRef step) {
            return TrackedGroups.of(c.txn(step.txn())).group(step).map(TrackedGroups.Group::all).orElse(List.of(step));
        }

        /** "tag-update", "post-read": what a companion statement is to its step. */
        private String role(StmtRef part) {
            Tracking t = c.stmt(part).tracking();
            return switch (t.role()) {
                case TAG -> "tag-update";
                case POST_READ -> "post-read";
                case COMPANION_READ -> "companion read";
                case VERSION_SET_READ -> "version-set read";
                case MATCH_READ -> "match read";
                default -> "statement " + part;
            };
        }

        /** "T2's UPDATE (W2[x1])". */
        private String statement(PatternOp op, StmtRef step) {
            return "T" + op.txn() + "'s " + kind(step) + " (" + op + ")";
        }

        private String kind(StmtRef step) {
            return step.txn() <= c.transactions().size() && step.index() < c.txn(step.txn()).statements().size()
                    ? c.stmt(step).kind().name() : "statement " + step;
        }

        /** What went otherwise in the step's versions, or null. */
        private String versionMismatch(PatternOp op, StmtRef step) {
            Transaction t = transaction(step.txn());
            if (t == null) {
                return "the history has no T" + step.txn();
            }
            switch (op.type()) {
                case READ -> {
                    return readMismatch(op, op.single(), t, step, true);
                }
                case PREDICATE_READ -> {
                    for (PatternOp.Version v : op.reads()) {
                        String wrong = readMismatch(op, v, t, step, p.present(v));
                        if (wrong != null) {
                            return wrong;
                        }
                    }
                    return null;
                }
                case WRITE, INSERT, DELETE -> {
                    return writeMismatch(op, t, step);
                }
                default -> {
                    return null;
                }
            }
        }

        private String readMismatch(PatternOp op, PatternOp.Version v, Transaction t, StmtRef step, boolean present) {
            String rid = origin.items().get(v.item()).rid();
            Optional<WList> seen = readAt(t, step.index(), rid);
            if (!present) {
                return seen.map(w -> op + " returned " + v.item() + "'s row (as " + name(v.item(), w) + "), which is not there in " + v).orElse(null);
            }
            if (seen.isEmpty()) {
                return op + " did not return " + v.item() + "'s row";
            }
            WList expected = inCase(versions.list(v));
            return seen.get().equals(expected) ? null : op + " read " + name(v.item(), seen.get());
        }

        private String writeMismatch(PatternOp op, Transaction t, StmtRef step) {
            PatternOp.Version v = op.single();
            String rid = origin.items().get(v.item()).rid();
            Write w = t.ops().stream().filter(o -> o.stmt() == step.index() && o instanceof Write x && x.row().equals(rid)).map(o -> (Write) o)
                    .findFirst().orElse(null);
            if (w == null) {
                return op + " wrote no version of " + v.item() + "'s row";
            }
            if (op.type() == PatternOp.Type.INSERT) {
                return w.kind() == WriteKind.INSERT ? null : op + " did not insert " + v.item() + "'s row but " + w.kind().label() + "d it";
            }
            WList before = w.wList().size() > 1 ? w.wList().prefix(w.wList().size() - 1) : null;
            WList expected = inCase(versions.list(new PatternOp.Version(v.item(), versions.basis(v))));
            if (before == null || !before.equals(expected)) {
                return op + " wrote on top of " + (before == null ? "nothing" : name(v.item(), before)) + ", not "
                        + new PatternOp.Version(v.item(), versions.basis(v));
            }
            return null;
        }

        /** The version of row {@code rid} statement {@code stmt} of {@code t} returned, by key or by predicate. */
        private Optional<WList> readAt(Transaction t, int stmt, String rid) {
            for (Op o : t.ops()) {
                if (o.stmt() != stmt) {
                    continue;
                }
                if (o instanceof Read r && r.row().equals(rid)) {
                    return Optional.of(r.wList());
                }
                if (o instanceof PredicateRead pr) {
                    for (RowVersion rv : pr.rows()) {
                        if (rv.row().equals(rid)) {
                            return Optional.of(rv.wList());
                        }
                    }
                }
            }
            return Optional.empty();
        }

        private Transaction transaction(int id) {
            return history.transactions().stream().filter(x -> x.id() == id).findFirst().orElse(null);
        }

        /** A pattern write list (pattern transaction ids) in the case's transaction ids. */
        private WList inCase(WList patternList) {
            if (patternList == null) {
                return null;
            }
            long[] ids = patternList.toArray();
            for (int i = 0; i < ids.length; i++) {
                ids[i] = ids[i] == History.INITIAL ? History.INITIAL : txnOf.getOrDefault((int) ids[i], (int) ids[i]);
            }
            return WList.of(ids);
        }

        /** The pattern's name for the version of {@code item} whose list is {@code seen} ("x1"), or the list itself. */
        private String name(String item, WList seen) {
            for (int k = 0; k <= p.ops().size(); k++) {
                PatternOp.Version v = new PatternOp.Version(item, k);
                if (seen.equals(inCase(versions.list(v)))) {
                    return v.toString();
                }
            }
            return item + " at " + seen;
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        String line = s.strip().lines().findFirst().orElse("");
        return line.length() > 160 ? line.substring(0, 157) + "…" : line;
    }
}
