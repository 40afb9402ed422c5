package txfuzz.report;

import java.util.List;
import java.util.Map;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.ViolationKind;
import txfuzz.dbms.Target;

/**
 * A finding's README.md: a report to paste into a DBMS's bug tracker as it is. It names the
 * version and isolation level, gives the schema, data and sessions as SQL in the order to run
 * them, says what happened and what was expected and why, draws the dependency cycle where the
 * oracle has one, and ends with how txfuzz found, reduced and replays it.
 */
public final class BugReport {
    private BugReport() {
    }

    /** @param folder the finding's folder as the user names it (e.g. {@code txfuzz-out/findings/h2-RC-s1-i156}) */
    public static String render(Finding f, Target target, String folder) {
        return render(f, target, folder, List.of());
    }

    /**
     * @param folder the finding's folder as the user names it (e.g. {@code txfuzz-out/findings/h2-RC-s1-i156})
     * @param files  the names of the files in the folder (this README among them), which the report lists and describes
     */
    public static String render(Finding f, Target target, String folder, List<String> files) {
        TestCase c = f.testCase();
        Violation v = f.primary();
        StringBuilder md = new StringBuilder();
        md.append("# ").append(target.version()).append(" at ").append(c.isolation().sql()).append(": ").append(headline(v)).append("\n\n");
        if (f.duplicateOf() != null) {
            md.append("> **Duplicate** of [").append(f.duplicateOf()).append("](../").append(f.duplicateOf()).append("/README.md)");
            Signature theirs = f.duplicateOfSignature();
            md.append(": the same signature").append(theirs == null ? "" : " (`" + theirs.id() + "` " + cell(theirs.text()) + ")").append('.');
            md.append(" Report that one; this folder is kept as further evidence.\n\n");
        }
        if (f.onNewest() != null) {
            md.append(f.onNewest().reportLine()).append("\n\n");
        }
        md.append(v.summary()).append("\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| DBMS | ").append(cell(target.version())).append(" |\n");
        md.append("| isolation level | ").append(c.isolation().sql()).append("default".equals(c.mode()) ? "" : " (mode " + c.mode() + ")")
                .append(Signature.ANY_LEVEL.equals(f.signature().level()) && !f.primary().evidence().caseIndependentIdentity().isPresent()
                        ? "; the case fails the same way at every level txfuzz tests for this engine" : "")
                .append(" |\n");
        md.append("| statements sent as | ").append(c.execution() == txfuzz.model.ExecutionMode.PREPARED
                ? "prepared statements, re-used within a session" : "plain SQL text").append(" |\n");
        md.append("| sessions | ").append(c.transactions().size()).append(" (one per transaction)").append(" |\n");
        md.append("| found by | txfuzz oracle `").append(v.oracle()).append("`, violation `").append(v.kind().label()).append("` |\n");
        md.append("| classification | ").append(v.classification().label()).append(" |\n");
        patternRow(f).ifPresent(row -> md.append("| generated from | ").append(cell(row)).append(" |\n"));
        md.append("| signature | `").append(f.signature().id()).append("` ").append(cell(f.signature().text()))
                .append(" (case: ").append(cell(f.signature().caseText())).append(") |\n\n");

        java.util.Optional<PlainForm> plain = f.plainShown();
        if (plain.isPresent()) {
            md.append("The SQL below is the reduced case without txfuzz's row tracking (`plain.case.json`). Run in the same order, it behaved as")
                    .append(" the tracked case txfuzz judged (`case.json`) did: ").append(PlainForm.COMPARED).append(" (`self-check.txt`).")
                    .append(" The tracked form follows it; the statement references in the evidence (T1.2 and the like) are to that form.\n\n");
            md.append(program(plain.get().plain(), plain.get().trace(), target, "##"));
            md.append("## The same case with txfuzz's row tracking, as judged\n\n")
                    .append("The oracle judged this form: two more columns per table (`rid`, `wl`), the tags writes leave in `wl`, and the")
                    .append(" companion statements that read them.\n\n");
            md.append(program(c, f.trace(), target, "###"));
        } else {
            if (f.plainForm() != null) {
                md.append(trackedNeeded(f.plainForm())).append("\n\n");
            }
            md.append(program(c, f.trace(), target, "##"));
        }

        md.append("## What happened, and what was expected\n\n");
        md.append(v.details().strip()).append("\n\n");
        if (f.trace() != null) {
            md.append("<details><summary>The run in full: order of completion, outcomes, final state</summary>\n\n```\n")
                    .append(TraceText.render(c, f.trace()).strip()).append("\n```\n\n</details>\n\n");
        }

        md.append("## The rule it breaks\n\n").append(rule(v, target, c)).append("\n\n");
        md.append("## Explanation\n\n").append(explanation(v, target, c)).append("\n\n");

        String drawings = drawings(v);
        if (!drawings.isEmpty()) {
            md.append("## Dependency graph\n\n").append(drawings);
        }

        List<Violation> others = f.violations().stream().filter(o -> !o.kind().equals(v.kind())).toList();
        if (!others.isEmpty()) {
            if (f.reduced()) {
                // their statement references (T5.2) are to the case as found, which has transactions the reduced case lacks
                md.append("## Also seen in the case as found, before reduction (`original.case.json`)\n\n")
                        .append("The case as found had ").append(f.original().transactions().size())
                        .append(" transactions; the statement references below (T1.2 and the like) are to it, not to the reduced case above.\n\n");
            } else {
                md.append("## Also seen in this run\n\n");
            }
            for (Violation o : others) {
                md.append("- ").append(o.oracle()).append('/').append(o.kind().label()).append(" (").append(o.classification().label()).append("): ")
                        .append(ReproduceScript.oneLine(o.summary())).append('\n');
            }
            md.append("\nSee `verdict.md` for their evidence.\n\n");
        }

        md.append("## How txfuzz found it\n\n");
        md.append("Generated case: seed ").append(c.seed()).append(", iteration ").append(c.iteration()).append(". ");
        md.append(reductionText(f)).append("\n\n");
        String oracles = oracleOption(f.violations()) + subjectOption(target);
        md.append("Replay and judge it again:\n\n```\n./txfuzz replay ").append(folder).append("/case.json").append(oracles).append("\n");
        if (f.reduced()) {
            md.append("./txfuzz replay ").append(folder).append("/original.case.json").append(oracles).append("   # the case as found\n");
        }
        if (f.plainShown().isPresent()) {
            md.append("./txfuzz replay ").append(folder).append("/plain.case.json   # the plain program (oracles that read row versions need case.json's row tracking)\n");
        }
        md.append("```\n");
        if (!files.isEmpty()) {
            md.append("\nFiles in this folder:\n\n");
            for (String name : files.stream().sorted(FILE_ORDER).toList()) {
                md.append("- `").append(name).append('`').append(describe(name, f)).append('\n');
            }
        }
        return md.toString();
    }

    /** The report first, then the case and its forms, then the rest by name. */
    private static final List<String> MAIN_FILES = List.of("README.md", "case.json", "reproduce.sql", "reproduce.spec", "reproduce.test",
            "reproduce.txt", "Repro.java", "trace.txt", "verdict.md");
    private static final java.util.Comparator<String> FILE_ORDER = java.util.Comparator
            .comparingInt((String n) -> MAIN_FILES.contains(n) ? MAIN_FILES.indexOf(n) : MAIN_FILES.size()).thenComparing(n -> n);

    /** What a file of the folder holds: ": …", or nothing where the report cannot say. */
    static String describe(String name, Finding f) {
        String what = switch (name) {
            case "README.md" -> "this report";
            case "case.json" -> f.reduced() ? "the reduced case (`./txfuzz replay` runs and judges it)" : "the case (`./txfuzz replay` runs and judges it)";
            case "reproduce.sql" -> "the same SQL, one block per session, for the engine's own client"
                    + (f.plainShown().isPresent() ? " (the plain program, then the tracked form as comments)" : "");
            case "reproduce.spec" -> "the case as a PostgreSQL isolation-tester spec";
            case "reproduce.test" -> "the case as a mysqltest file";
            case "reproduce.txt" -> "the case as a plain schedule, the form it was imported from (`./txfuzz import` reads it)";
            case "Repro.java" -> "the case as a JDBC program needing only the engine's jar (`java -cp <engine jar> Repro.java`): it replays"
                    + " the run in order and exits 1 when the behaviour comes back, 0 when it does not";
            case "trace.txt" -> "the run of `case.json`: order of completion, outcomes, final state";
            case "verdict.md" -> "every violation's evidence" + (f.reduced() ? ", from the case as found" : "");
            case "plain.case.json" -> "the reduced case without txfuzz's row tracking";
            case "plain.trace.txt" -> "the run of `plain.case.json`";
            case "self-check.txt" -> "how the plain program's run compared with the tracked one's";
            case "original.case.json" -> "the case as found, before reduction";
            case "original.reproduce.sql" -> "the case as found, as SQL";
            case "original.trace.txt" -> "the run of the case as found that the oracles judged";
            default -> attachment(name, f);
        };
        return what == null ? "" : ": " + what;
    }

    /** A violation's attachment (a drawing, a script): which violation attached it, and of which case. */
    private static String attachment(String name, Finding f) {
        boolean asFound = name.startsWith("original.");
        String bare = asFound ? name.substring("original.".length()) : name;
        List<Violation> candidates = new java.util.ArrayList<>(List.of(f.primary()));
        candidates.addAll(f.violations());
        return candidates.stream().filter(v -> v.attachments().containsKey(bare)).findFirst()
                .map(by -> "attached by " + by.oracle() + "/" + by.kind().label() + (asFound ? ", for the case as found" : ""))
                .orElse(null);
    }

    /** The schema, data and sessions of {@code c} under headings of {@code level} ("##"), with {@code trace}'s outcomes as comments. */
    private static String program(TestCase c, Trace trace, Target target, String level) {
        StringBuilder md = new StringBuilder();
        md.append(level).append(" Schema and data\n\n```sql\n");
        for (String s : c.setup()) {
            md.append(ReproduceScript.terminated(s)).append('\n');
        }
        md.append("```\n\n");

        md.append(level).append(" Sessions\n\n");
        md.append("Open ").append(c.transactions().size() == 1 ? "one session" : c.transactions().size() + " sessions").append(" (")
                .append(String.join(", ", c.transactions().stream().map(t -> "T" + t.id()).toList()))
                .append(c.transactions().size() == 1 ? "). Configure it with:\n\n```sql\n" : "). Configure each one with:\n\n```sql\n");
        for (String s : target.sessionSetupSql(c.isolation(), c.mode())) {
            md.append(ReproduceScript.terminated(s)).append('\n');
        }
        md.append("```\n\n");
        for (txfuzz.model.Txn t : c.transactions()) {
            List<String> own = ReproduceScript.ownSessionSql(target, c, t);
            if (own.isEmpty()) {
                continue;
            }
            md.append("T").append(t.id()).append("'s session then takes ").append(t.isolation() != null && t.isolation() != c.isolation()
                    ? "a level" + (t.settings().isEmpty() ? "" : " and settings") : "settings").append(" of its own:\n\n```sql\n");
            own.forEach(q -> md.append(ReproduceScript.terminated(q)).append('\n'));
            md.append("```\n\n");
            if (trace != null) {
                for (txfuzz.exec.Trace.RefusedSetting r : trace.refusedSettings()) {
                    if (r.txn() == t.id()) {
                        md.append("In txfuzz's run ").append(target.name()).append(' ').append(target.version()).append(" refused `")
                                .append(ReproduceScript.oneLine(r.setting())).append("` (").append(ReproduceScript.oneLine(r.error()))
                                .append("): the session ran without it.\n\n");
                    }
                }
            }
        }
        md.append("Then run the statements in this order, each in its session. A statement that blocks holds back the rest "
                + "of its session until it returns; go on with the other sessions' steps meanwhile.");
        if (trace != null) {
            md.append(" The comment after each statement is what it returned in txfuzz's run.");
        }
        List<PrintedOrder.Line> lines = PrintedOrder.of(c, trace);
        if (lines.stream().anyMatch(l -> l.kind() == PrintedOrder.Kind.TXFUZZ_ROLLBACK)) {
            md.append(" A `ROLLBACK` marked *sent by txfuzz* is one txfuzz sent in its run to end a transaction the engine aborted"
                    + " (or txfuzz cancelled); run it too, where it stands: until then the engine may keep that transaction's locks.");
        }
        if (lines.stream().anyMatch(l -> l.kind() == PrintedOrder.Kind.NEVER_RAN)) {
            md.append(" Statements commented out never ran: their transaction had ended.");
        }
        md.append("\n\n```sql\n");
        for (PrintedOrder.Line l : lines) {
            Txn t = c.txn(l.txn());
            String head = "/* T" + l.txn() + (t.explicit() ? "" : ", autocommit") + " */ ";
            String sql = ReproduceScript.oneLine(ReproduceScript.terminated(ReproduceScript.sqlOf(c.stmt(l.ref()), target, c.mode())));
            String line = switch (l.kind()) {
                case STATEMENT -> ReproduceScript.pad(head + sql, 70) + " -- step " + l.step() + outcome(trace, l.ref());
                case NEVER_RAN -> ReproduceScript.pad("-- " + head + sql, 70) + " -- step " + l.step() + outcome(trace, l.ref());
                case TXFUZZ_ROLLBACK -> ReproduceScript.pad(head + "ROLLBACK;", 70) + " -- " + ReproduceScript.sentByTxfuzz(l);
            };
            md.append(line).append('\n');
        }
        md.append("```\n\n");

        return md.toString();
    }

    /** Why the report shows the tracked form: the plain program behaved differently, or there is none to show. */
    private static String trackedNeeded(PlainForm p) {
        if (p.outcome() == PlainForm.Outcome.DIFFERENT) {
            return "The SQL below keeps txfuzz's row tracking (`rid`/`wl` columns, tags, companion statements), because without it the"
                    + " reduced case behaved differently (`plain.case.json`, `plain.trace.txt`, `self-check.txt`):\n\n" + p.why().strip();
        }
        return "The SQL below keeps txfuzz's row tracking (`rid`/`wl` columns, tags, companion statements): there is no plain form of it"
                + " to show (" + p.why().strip() + ").";
    }

    /**
     * The {@code --oracle} option that makes {@code txfuzz replay} judge the case as the campaign did
     * (replay runs wss,explicit by default): empty when those are the oracles the violations came from.
     */
    /**
     * For a case generated from an anomaly pattern: which pattern, the levels that proscribe it, and
     * whether the run as found realised it (a reduced case no longer performs the pattern).
     */
    static java.util.Optional<String> patternRow(Finding f) {
        TestCase asFound = f.original() != null ? f.original() : f.testCase();
        Trace run = f.original() != null ? f.originalTrace() : f.trace();
        txfuzz.model.PatternOrigin o = asFound.origin();
        if (o == null) {
            return java.util.Optional.empty();
        }
        String levels = txfuzz.gen.pattern.PatternCatalogue.bundled().byName(o.pattern())
                .map(p -> p.proscribedAt().isEmpty() ? "no level proscribes it: a control"
                        : "proscribed at " + p.levelCodes())
                .orElse("not in this build's catalogue");
        String realised = run == null ? "the run as found was not recorded"
                : "the run as found " + realisationText(asFound, run);
        return java.util.Optional.of("pattern `" + o.pattern() + "` `" + o.ops() + "` (" + levels + "); " + realised);
    }

    private static String realisationText(TestCase c, Trace run) {
        txfuzz.oracle.pattern.PatternRealisation r = txfuzz.oracle.pattern.PatternRealisation.ofRun(c, run);
        return switch (r.verdict()) {
            case REALISED -> "realised it";
            case NOT_REALISED -> "did not realise it: " + r.reason();
            case NOT_CHECKABLE -> "cannot be checked against it: " + r.reason();
        };
    }

    /** The replay's --subject when the target was opened with settings (replay opens the case's DBMS without them otherwise). */
    static String subjectOption(Target target) {
        StringBuilder sb = new StringBuilder();
        target.settings().forEach((k, v) -> sb.append('+').append(k).append('=').append(v));
        return sb.length() == 0 ? "" : " --subject " + target.name() + sb;
    }

    /** The replay's --oracle: the oracles that reported {@code violations}, so the replay judges the finding as it was judged. */
    static String oracleOption(List<Violation> violations) {
        java.util.Set<String> oracles = new java.util.LinkedHashSet<>();
        violations.forEach(v -> oracles.add(v.oracle()));
        return oracles.isEmpty() ? "" : " --oracle " + String.join(",", oracles);
    }

    private static String headline(Violation v) {
        return v.headline();
    }

    /** What the oracle checks and why such an observation breaks it (as its kind says), and what this one was checked against. */
    static String rule(Violation v, Target target, TestCase c) {
        ViolationKind.Setting where = new ViolationKind.Setting(target.name(), c.isolation());
        return v.kind().rule(where) + v.evidence().checked().map(s -> "\n\n" + s).orElse("");
    }

    /** Why it happened, from the violation's own evidence where the oracle can say; then the classification's meaning. */
    static String explanation(Violation v, Target target, TestCase c) {
        ViolationKind.Setting where = new ViolationKind.Setting(target.name(), c.isolation());
        String verdict = switch (v.classification()) {
            case BUG_CANDIDATE -> v.kind().undocumented(where);
            case DOCUMENTED -> "This is behaviour " + target.name() + " documents at " + c.isolation().sql()
                    + (v.reference() == null ? "." : ": " + v.reference() + ".") + " Recorded for completeness, not as a bug.";
            case NOT_PROMISED -> "Every promise " + target.name() + " makes at " + c.isolation().sql() + " holds in this run"
                    + (v.reference() == null ? "." : ": " + v.reference() + ".") + " It breaks only txfuzz's own stricter expectation:"
                    + " recorded for completeness, not as a bug.";
            case FLAKY -> "It did not come back when the case was run again: treat it with care.";
            case INSTRUMENTATION_EFFECT -> "The same case without txfuzz's row tracking behaved differently (`self-check.txt`): the"
                    + " observation is about the instrumented program, not the one a user runs. Not an engine bug as it stands.";
        };
        return v.evidence().explanation().map(e -> e + "\n\n").orElse("") + verdict;
    }

    /**
     * Mermaid drawings embedded, DOT files linked, from the violation's attachments; a drawing's
     * plain-text twin ({@code X.txt} beside {@code X.mmd}) first, in a plain code block, for trackers
     * that render neither Mermaid nor collapsed blocks.
     */
    static String drawings(Violation v) {
        StringBuilder md = new StringBuilder();
        for (Map.Entry<String, String> a : v.attachments().entrySet()) {
            if (a.getKey().endsWith(".mmd")) {
                String plain = v.attachments().get(a.getKey().substring(0, a.getKey().length() - 4) + ".txt");
                if (plain != null) {
                    md.append("```text\n").append(plain.strip()).append("\n```\n\n");
                }
                String body = a.getValue().strip();
                if (body.startsWith("```")) {
                    body = body.replaceFirst("^```\\w*\\n?", "").replaceFirst("\\n?```$", "").strip();
                }
                md.append("```mermaid\n").append(body).append("\n```\n\n");
            }
        }
        for (String name : v.attachments().keySet()) {
            if (name.endsWith(".dot")) {
                md.append("Graphviz: [`").append(name).append("`](").append(name).append(") (`dot -Tsvg ").append(name).append(" > ")
                        .append(name, 0, name.length() - 4).append(".svg`)\n\n");
            }
        }
        return md.toString();
    }

    private static String reductionText(Finding f) {
        ReductionRecord r = f.reduction();
        if (r == null) {
            return "";
        }
        return switch (r.status()) {
            case ReductionRecord.REDUCED -> "Reduced automatically from " + r.statementsBefore() + " to " + r.statementsAfter()
                    + " data statements in " + r.seconds() + " s (" + r.runs() + " runs"
                    + (Boolean.TRUE.equals(r.exhausted()) ? "; the time budget ran out, so it may shrink further" : "")
                    + "); the case as found is kept as `original.case.json`"
                    + (r.note() == null ? "" : "; " + r.note()) + ".";
            case ReductionRecord.PENDING -> "Not reduced yet (" + r.statementsBefore() + " data statements): reduction is running.";
            case ReductionRecord.SKIPPED_DUPLICATE -> "Not reduced (" + r.statementsBefore() + " data statements): it shows what the "
                    + "finding it duplicates is signed by, so the campaign did not spend time reducing it.";
            case ReductionRecord.OFF -> "Not reduced (" + r.statementsBefore() + " data statements): reduction was off (`--reduce-time 0`).";
            case ReductionRecord.TIME_UP -> r.runs() == null
                    ? "Not reduced (" + r.statementsBefore() + " data statements): the campaign's time was up, and after it only bug"
                            + " candidates are reduced."
                    : "Not reduced (" + r.statementsBefore() + " data statements): the reduction's time budget ran out after " + r.runs()
                            + " runs in " + r.seconds() + " s, before a smaller case was confirmed.";
            case ReductionRecord.ON_REQUEST -> "Not reduced (" + r.statementsBefore() + " data statements): the campaign reduced only bug"
                    + " candidates (`run --reduce-documented` reduces the others too); `txfuzz reduce` on its `case.json` shrinks it.";
            case ReductionRecord.INTERRUPTED -> "Not reduced (" + r.statementsBefore() + " data statements): the reduction was interrupted.";
            case ReductionRecord.MINIMAL -> "Not reduced (" + r.statementsBefore() + " data statements): the reducer could remove nothing ("
                    + r.runs() + " runs in " + r.seconds() + " s).";
            case ReductionRecord.NOT_REPRODUCED -> "Not reduced (" + r.statementsBefore() + " data statements): the reducer's runs of the case"
                    + " did not show the violation again (it may be nondeterministic).";
            case ReductionRecord.VIOLATION_LOST -> "Not reduced (" + r.statementsBefore() + " data statements): the reducer's runs of"
                    + " the case did not show this violation again" + (r.note() == null ? "" : "; " + r.note())
                    + ". A reduction of that would report another behaviour, so the case is kept as found.";
            case ReductionRecord.FAILED -> "Not reduced (" + r.statementsBefore() + " data statements): the reducer itself failed.";
            default -> "Not reduced (" + r.statementsBefore() + " data statements): "
                    + (f.primary().classification() == Classification.FLAKY ? "it is flaky"
                            : f.primary().classification() == Classification.INSTRUMENTATION_EFFECT ? "it is an effect of the row tracking"
                            : "the oracles cannot re-check this kind of failure")
                    + ".";
        };
    }

    private static String outcome(Trace trace, StmtRef ref) {
        if (trace == null) {
            return "";
        }
        return trace.executed(ref).map(e -> ": " + summary(e, trace.hung().contains(ref))).orElse(": never ran (its transaction had ended)");
    }

    /** A step's outcome in a few words; a hung statement is called hung (it did not wait on a lock), not blocked. */
    private static String summary(ExecutedStmt e, boolean hung) {
        String s = ReproduceScript.oneLine(e.result().summary());
        var rows = e.result().rows();
        if (!e.result().failed() && rows != null && !rows.isEmpty() && rows.size() <= 4) {
            s += ": " + String.join(" ", rows.stream().map(txfuzz.model.DbState::formatRow).toList());
        }
        int max = e.result().failed() ? 240 : 90; // an error's text is evidence: keep it whole where it fits
        if (s.length() > max) {
            s = s.substring(0, max - 3) + "...";
        }
        return (hung ? "hung: not waiting on a lock, cancelled by txfuzz, then " : e.blocked() ? "blocked, then " : "") + s;
    }


    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }
}
