package txfuzz.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import txfuzz.exec.Trace;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;
import txfuzz.dbms.Target;

/**
 * Writes a finding's folder: README.md (the bug report), case.json (replayable), reproduce.sql and
 * the case in its engine's regression-test form (reproduce.spec for PostgreSQL, reproduce.test for
 * MariaDB, Repro.java for the in-process engines), trace.txt and verdict.md, the violations' attachments, and once the case was reduced the case as
 * found beside it (original.case.json, original.reproduce.sql, original.trace.txt). Written at
 * once, before the campaign moves on, so a crash later loses nothing; written again when the
 * reduction is done. Each write is whole or invisible (see {@link #write(Finding, Target)}).
 */
public final class FindingWriter {

    private final Path findingsDir;

    public FindingWriter(Path outDir) {
        this.findingsDir = outDir.resolve("findings");
    }

    public Path findingsDir() {
        return findingsDir;
    }

    /**
     * A finding's folder name: {@code <dbms>-<level>[-<mode>][-prepared]-s<seed>-i<iteration>}, e.g.
     * {@code h2-RC-s1-i42}, {@code hsqldb-SER-locks-s1-i7}: unique within a run and across modes.
     */
    public static String id(TestCase c) {
        return id(c, null);
    }

    /** As {@link #id(TestCase)}, with the kind's label before the seed where one case gives several folders: {@code h2-RC-lost-update-s1-i9}. */
    public static String id(TestCase c, String kind) {
        return c.dbms() + "-" + c.isolation().shortName() + ("default".equals(c.mode()) ? "" : "-" + c.mode())
                + (c.execution() == txfuzz.model.ExecutionMode.PREPARED ? "-prepared" : "") + (kind == null ? "" : "-" + kind)
                + "-s" + c.seed() + "-i" + c.iteration();
    }

    public Path dir(String id) {
        return findingsDir.resolve(id);
    }

    /** Writes an unreduced finding (no reduction) and returns one record per violation. */
    public List<FindingRecord> write(String id, TestCase c, Trace trace, List<Violation> violations, Target target) {
        return write(Finding.unreduced(id, c, trace, violations, null), target);
    }

    /**
     * Writes the finding's folder and returns one record per violation of the run as found. The
     * folder is written whole under a hidden temporary name beside it ({@code .<id>.tmp-<pid>}) and
     * then renamed into place atomically; a folder written before (e.g. before reduction) is renamed
     * away first ({@code .<id>.old-<pid>}) and deleted after, so {@code findings/<id>} is always
     * complete — at worst absent between the two renames, never partial. Stale hidden folders of a
     * killed run are removed first.
     */
    public List<FindingRecord> write(Finding f, Target target) {
        if (f.duplicateOf() != null) {
            return writeReference(f);
        }
        writeFolder(f.id(), (tmp, dir) -> writeFiles(f, target, tmp, dir));
        TestCase c = f.testCase();
        return records(f.id(), c.dbms(), c.isolation().name(), f.violations(), f.signature(), f.duplicateOf(), f.reduction()).stream()
                .map(r -> r.withOnNewest(f.onNewest())).toList();
    }

    /** Where a run's duplicates are kept: a line each, in the order they were filed. */
    public static final String DUPLICATES = "duplicates.jsonl";

    private static final com.fasterxml.jackson.databind.ObjectMapper LINE = new com.fasterxml.jackson.databind.ObjectMapper();

    /**
     * A duplicate keeps a reference, not a folder: one line of {@code findings/duplicates.jsonl} with its id,
     * the representative it duplicates, its signature, its primary violation and the case as filed (so it
     * still replays: {@code jq .case}). A folder is ~60 kB on disk, a line a few kB, so the findings of
     * a long run grow with its unique findings, not its cases. A folder this writer made for the finding
     * before its reduction showed it a duplicate is removed; the line is appended whole (one write).
     */
    private List<FindingRecord> writeReference(Finding f) {
        TestCase c = f.testCase();
        Violation primary = f.primary();
        var line = LINE.createObjectNode();
        line.put("id", f.id());
        line.put("duplicateOf", f.duplicateOf());
        line.put("signature", f.signature() == null ? null : f.signature().id());
        line.put("oracle", primary.oracle());
        line.put("kind", primary.kind().label());
        line.put("classification", primary.classification().label());
        line.put("violations", f.violations().size());
        line.put("reduction", f.reduction() == null ? null : f.reduction().status());
        line.put("summary", primary.summary());
        try {
            line.set("case", LINE.readTree(CaseJson.write(c)));
            Files.createDirectories(findingsDir);
            deleteTree(dir(f.id())); // the folder written as found, before the reduction
            Files.writeString(findingsDir.resolve(DUPLICATES), LINE.writeValueAsString(line) + "\n", java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write duplicate " + f.id() + " to " + findingsDir.resolve(DUPLICATES) + ": " + e.getMessage(), e);
        }
        List<FindingRecord> records = new ArrayList<>();
        for (Violation v : f.violations()) {
            records.add(new FindingRecord(f.id(), v.oracle(), c.dbms(), c.isolation().name(), v.kind().label(), v.classification().label(),
                    findingsDir.getFileName() + "/" + DUPLICATES, v.summary())
                    .withFinding(v == primary, f.signature(), f.duplicateOf(), f.reduction()));
        }
        return records;
    }

    /**
     * A finding with no case to replay — e.g. a recorded history judged offline ({@code txfuzz
     * check}): {@code verdict.md} (the same sections as a run's) and the violations' files, written
     * whole or not at all like any finding's folder. One record per violation, as a run writes them.
     *
     * @param source what was judged, e.g. "history: `run.jsonl`"
     * @param again  the command that judges it again
     */
    public List<FindingRecord> writeEvidence(String id, String dbms, IsolationLevel level, String source, String again,
                                             List<Violation> violations) {
        writeFolder(id, (into, dir) -> {
            for (Violation v : violations) {
                for (Map.Entry<String, String> a : v.attachments().entrySet()) {
                    Files.writeString(into.resolve(a.getKey()), a.getValue());
                }
            }
            StringBuilder md = new StringBuilder("# ").append(id).append("\n\n");
            md.append("- DBMS: ").append(dbms).append('\n');
            md.append("- isolation level: ").append(level.sql()).append('\n');
            md.append("- ").append(source).append('\n');
            md.append("- judge again: `").append(again).append("`\n\n");
            appendViolations(md, violations);
            Files.writeString(into.resolve("verdict.md"), md.toString());
        });
        return records(id, dbms, level.name(), violations, null, null, null);
    }

    private List<FindingRecord> records(String id, String dbms, String level, List<Violation> violations, Signature signature,
                                        String duplicateOf, ReductionRecord reduction) {
        Violation primary = Finding.primaryOf(violations);
        List<FindingRecord> records = new ArrayList<>();
        for (Violation v : violations) {
            records.add(new FindingRecord(id, v.oracle(), dbms, level, v.kind().label(), v.classification().label(),
                    findingsDir.getFileName() + "/" + id, v.summary())
                    .withFinding(v == primary, signature, duplicateOf, reduction));
        }
        return records;
    }

    /** Writes a folder's files into a temporary folder, given it and the folder's final place. */
    private interface Contents {
        void write(Path into, Path dir) throws IOException;
    }

    /**
     * Writes {@code findings/<id>}: whole under a hidden temporary name beside it ({@code .<id>.tmp-<pid>})
     * and then renamed into place atomically; a folder written before (e.g. before reduction) is renamed
     * away first ({@code .<id>.old-<pid>}) and deleted after, so {@code findings/<id>} is always
     * complete — at worst absent between the two renames, never partial. Stale hidden folders of a
     * killed run are removed first.
     */
    private void writeFolder(String id, Contents contents) {
        Path dir = dir(id);
        long pid = ProcessHandle.current().pid();
        Path tmp = findingsDir.resolve("." + id + ".tmp-" + pid);
        Path old = findingsDir.resolve("." + id + ".old-" + pid);
        try {
            Files.createDirectories(findingsDir);
            removeStale();
            deleteTree(tmp);
            Files.createDirectory(tmp);
            contents.write(tmp, dir);
            if (Files.exists(dir)) {
                deleteTree(old);
                Files.move(dir, old, StandardCopyOption.ATOMIC_MOVE);
                Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
                deleteTree(old);
            } else {
                Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write finding " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The folder's files, into {@code into}; {@code dir} is where they will be (the README names it). */
    private void writeFiles(Finding f, Target target, Path into, Path dir) throws IOException {
        if (f.reduced()) {
            Files.writeString(into.resolve("original.case.json"), CaseJson.write(f.original()));
            Files.writeString(into.resolve("original.reproduce.sql"), ReproduceScript.render(f.original(), f.originalTrace(), target));
            writeOrDelete(into.resolve("original.trace.txt"), f.originalTrace() == null ? null : TraceText.render(f.original(), f.originalTrace()));
        }
        Files.writeString(into.resolve("case.json"), CaseJson.write(f.testCase()));
        java.util.Optional<PlainForm> plain = f.plainShown();
        Files.writeString(into.resolve("reproduce.sql"), plain.isPresent()
                ? ReproduceScript.renderPlainFirst(plain.get().plain(), plain.get().trace(), f.testCase(), f.trace(), target)
                : ReproduceScript.render(f.testCase(), f.trace(), target));
        // the same case in the form the engine's maintainers keep regression tests in; each applies to its engines only;
        // the plain program where it behaved as the tracked case did (a maintainer runs no row tracking)
        String about = about(f.primary()) + plain.map(p -> "\n" + PLAIN_ABOUT).orElse("");
        TestCase shown = plain.map(PlainForm::plain).orElse(f.testCase());
        Trace shownTrace = plain.map(PlainForm::trace).orElse(f.trace());
        writeOrDelete(into.resolve("reproduce.spec"), IsolationTesterSpec.render(shown, target, about).orElse(null));
        writeOrDelete(into.resolve("reproduce.test"), MysqlTestScript.render(shown, shownTrace, target, about).orElse(null));
        // an imported plain schedule goes back as one (a spec or a mysqltest file already has its form above)
        writeOrDelete(into.resolve("reproduce.txt"), shown.source() != null && shown.source().format() == txfuzz.model.CaseSource.Format.SCHEDULE
                ? ScheduleText.render(shown, about) : null);
        writeOrDelete(into.resolve("Repro.java"), JdbcReproProgram.render(shown, shownTrace, target, about).orElse(null));
        writeOrDelete(into.resolve("trace.txt"), f.trace() == null ? null : TraceText.render(f.testCase(), f.trace()));
        for (Violation v : f.violations()) {
            for (Map.Entry<String, String> a : v.attachments().entrySet()) {
                // once reduced, the drawings of the run as found describe original.case.json
                Files.writeString(into.resolve((f.reduced() ? "original." : "") + a.getKey()), a.getValue());
            }
        }
        for (Map.Entry<String, String> a : f.primary().attachments().entrySet()) {
            Files.writeString(into.resolve(a.getKey()), a.getValue());
        }
        if (f.plainForm() != null) {
            // the reduced case's own check: it replaces any twin of the case as found the primary violation carried
            PlainForm p = f.plainForm();
            Files.writeString(into.resolve("self-check.txt"), p.selfCheckText());
            writeOrDelete(into.resolve("plain.case.json"), p.plain() == null ? null : CaseJson.write(p.plain()));
            writeOrDelete(into.resolve("plain.trace.txt"), p.plain() == null ? null : TraceText.render(p.plain(), p.trace()));
        }
        Path caseFile = dir.resolve(f.reduced() ? "original.case.json" : "case.json");
        Files.writeString(into.resolve("verdict.md"), verdict(f.id(), f.reduced() ? f.original() : f.testCase(), f.violations(), target,
                caseFile, f.reduced()));
        // the report lists the folder's files as written, itself included
        List<String> files = new ArrayList<>();
        try (Stream<Path> written = Files.list(into)) {
            written.forEach(p -> files.add(p.getFileName().toString()));
        }
        files.add("README.md");
        Files.writeString(into.resolve("README.md"), BugReport.render(f, target, dir.toString(), files));
    }

    /** The scripts' note when they hold the plain program. */
    static final String PLAIN_ABOUT = "This is the reduced case without txfuzz's row tracking (plain.case.json); run in the same order, it behaved"
            + " as the tracked case txfuzz judged (case.json) did: " + PlainForm.COMPARED + ".";

    /** What a finding is about, for the scripts' headers: oracle, kind, classification and summary. */
    static String about(Violation v) {
        return v.oracle() + " " + v.kind().label() + " (" + v.classification().label() + "): " + v.summary();
    }

    /** Hidden names under findings/ are this writer's work in progress: readers of findings/ skip them. */
    public static boolean isHidden(Path entry) {
        return entry.getFileName().toString().startsWith(".");
    }

    private static final Pattern WORK_FOLDER = Pattern.compile("\\..+\\.(tmp|old)-(\\d+)");

    /** Removes hidden work folders left by a process that is gone (killed mid-write), and this process's own leftovers. */
    private void removeStale() throws IOException {
        List<Path> stale = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(findingsDir)) {
            for (Path e : entries) {
                Matcher m = WORK_FOLDER.matcher(e.getFileName().toString());
                if (m.matches() && Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS)) {
                    long pid = Long.parseLong(m.group(2));
                    boolean alive = pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
                    if (!alive) {
                        stale.add(e);
                    }
                }
            }
        }
        for (Path p : stale) {
            deleteTree(p);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static void writeOrDelete(Path file, String content) throws IOException {
        if (content == null) {
            Files.deleteIfExists(file);
        } else {
            Files.writeString(file, content);
        }
    }

    static String verdict(String id, TestCase c, List<Violation> violations, Target target, Path caseFile, boolean reduced) {
        StringBuilder md = new StringBuilder("# ").append(id).append("\n\n");
        if (reduced) {
            md.append("The evidence below is from the case as found (`original.case.json`); `README.md` shows the reduced case (`case.json`).\n\n");
        }
        md.append("- DBMS: ").append(target.version()).append('\n');
        md.append("- isolation level: ").append(c.isolation().sql()).append(c.mode().equals("default") ? "" : ", mode " + c.mode()).append('\n');
        md.append("- case: seed ").append(c.seed()).append(", iteration ").append(c.iteration()).append('\n');
        md.append("- replay: `./txfuzz replay ").append(caseFile).append(BugReport.oracleOption(violations)).append(BugReport.subjectOption(target)).append("`\n\n");
        appendViolations(md, violations);
        return md.toString();
    }

    /** Per violation: oracle, kind, classification, summary, the reference for documented behaviour, the evidence. */
    private static void appendViolations(StringBuilder md, List<Violation> violations) {
        for (Violation v : violations) {
            md.append("## ").append(v.oracle()).append(": ").append(v.kind().label()).append(" — ").append(v.classification().label()).append("\n\n");
            md.append(v.summary()).append("\n\n");
            if (v.reference() != null) {
                md.append("Documented behaviour: ").append(v.reference()).append("\n\n");
            }
            md.append(v.details()).append('\n');
        }
    }
}
