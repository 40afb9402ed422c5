package txfuzz.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import txfuzz.exec.Trace;
import txfuzz.model.CaseJson;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;
import txfuzz.dbms.Target;

/**
 * Writes a finding's folder: README.md (the bug report), case.json (replayable), reproduce.sql,
 * trace.txt and verdict.md, the violations' attachments, and once the case was reduced the case as
 * found beside it (original.case.json, original.reproduce.sql, original.trace.txt). Written at
 * once, before the campaign moves on, so a crash later loses nothing; written again when the
 * reduction is done.
 */
public final class FindingWriter {
    static final String[] ORIGINAL_FILES = {"original.case.json", "original.reproduce.sql", "original.trace.txt"};

    private final Path findingsDir;

    public FindingWriter(Path outDir) {
        this.findingsDir = outDir.resolve("findings");
    }

    public Path findingsDir() {
        return findingsDir;
    }

    public Path dir(String id) {
        return findingsDir.resolve(id);
    }

    /** Writes an unreduced finding (no reduction) and returns one record per violation. */
    public List<FindingRecord> write(String id, TestCase c, Trace trace, List<Violation> violations, Target target) {
        return write(Finding.unreduced(id, c, trace, violations, null), target);
    }

    /** Writes the finding's folder and returns one record per violation of the run as found. */
    public List<FindingRecord> write(Finding f, Target target) {
        Path dir = dir(f.id());
        try {
            Files.createDirectories(dir);
            // the case as found first: the folder holds it under one name or another at every moment
            if (f.reduced()) {
                Files.writeString(dir.resolve("original.case.json"), CaseJson.write(f.original()));
                Files.writeString(dir.resolve("original.reproduce.sql"), ReproduceScript.render(f.original(), target));
                writeOrDelete(dir.resolve("original.trace.txt"), f.originalTrace() == null ? null : TraceText.render(f.original(), f.originalTrace()));
            } else {
                for (String name : ORIGINAL_FILES) {
                    Files.deleteIfExists(dir.resolve(name)); // never leave an older run's files beside this case
                }
            }
            Files.writeString(dir.resolve("case.json"), CaseJson.write(f.testCase()));
            Files.writeString(dir.resolve("reproduce.sql"), ReproduceScript.render(f.testCase(), target));
            writeOrDelete(dir.resolve("trace.txt"), f.trace() == null ? null : TraceText.render(f.testCase(), f.trace()));
            for (Violation v : f.violations()) {
                for (Map.Entry<String, String> a : v.attachments().entrySet()) {
                    // once reduced, the drawings of the run as found describe original.case.json
                    Files.writeString(dir.resolve((f.reduced() ? "original." : "") + a.getKey()), a.getValue());
                }
            }
            for (Map.Entry<String, String> a : f.primary().attachments().entrySet()) {
                Files.writeString(dir.resolve(a.getKey()), a.getValue());
            }
            Path caseFile = dir.resolve(f.reduced() ? "original.case.json" : "case.json");
            Files.writeString(dir.resolve("verdict.md"), verdict(f.id(), f.reduced() ? f.original() : f.testCase(), f.violations(), target,
                    caseFile, f.reduced()));
            Files.writeString(dir.resolve("README.md"), BugReport.render(f, target, dir.toString()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write finding " + dir + ": " + e.getMessage(), e);
        }
        Violation primary = Finding.primaryOf(f.violations());
        List<FindingRecord> records = new ArrayList<>();
        for (Violation v : f.violations()) {
            TestCase c = f.testCase();
            records.add(new FindingRecord(f.id(), v.oracle(), c.dbms(), c.isolation().name(), v.kind(), v.classification().label(),
                    findingsDir.getFileName() + "/" + f.id(), v.summary())
                    .withFinding(v == primary, f.signature(), f.duplicateOf(), f.reduction()));
        }
        return records;
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
        md.append("- replay: `./txfuzz replay ").append(caseFile).append("`\n\n");
        for (Violation v : violations) {
            md.append("## ").append(v.oracle()).append(": ").append(v.kind()).append(" — ").append(v.classification().label()).append("\n\n");
            md.append(v.summary()).append("\n\n");
            if (v.reference() != null) {
                md.append("Documented behaviour: ").append(v.reference()).append("\n\n");
            }
            md.append(v.details()).append('\n');
        }
        return md.toString();
    }
}
