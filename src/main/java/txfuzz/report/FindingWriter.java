package txfuzz.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import txfuzz.exec.Trace;
import txfuzz.model.CaseJson;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;
import txfuzz.target.Target;

/**
 * Writes a finding's folder: case.json (replayable), reproduce.sql, trace.txt and verdict.md.
 * Written at once, before the campaign moves on, so a crash later loses nothing.
 */
public final class FindingWriter {
    private final Path findingsDir;

    public FindingWriter(Path outDir) {
        this.findingsDir = outDir.resolve("findings");
    }

    /** Writes the finding and returns one record per violation. */
    public List<FindingRecord> write(String id, TestCase c, Trace trace, List<Violation> violations, Target target) {
        Path dir = findingsDir.resolve(id);
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("case.json"), CaseJson.write(c));
            Files.writeString(dir.resolve("reproduce.sql"), ReproduceScript.render(c, target));
            if (trace != null) {
                Files.writeString(dir.resolve("trace.txt"), TraceText.render(c, trace));
            } else {
                Files.deleteIfExists(dir.resolve("trace.txt")); // never leave an older run's trace beside this case
            }
            for (Violation v : violations) {
                for (var a : v.attachments().entrySet()) {
                    Files.writeString(dir.resolve(a.getKey()), a.getValue());
                }
            }
            Files.writeString(dir.resolve("verdict.md"), verdict(id, c, violations, target, dir.resolve("case.json")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write finding " + dir + ": " + e.getMessage(), e);
        }
        List<FindingRecord> records = new ArrayList<>();
        for (Violation v : violations) {
            records.add(new FindingRecord(id, v.oracle(), c.dbms(), c.isolation().name(), v.kind(), v.classification().label(),
                    findingsDir.getFileName() + "/" + id, v.summary()));
        }
        return records;
    }

    static String verdict(String id, TestCase c, List<Violation> violations, Target target, java.nio.file.Path caseFile) {
        StringBuilder md = new StringBuilder("# ").append(id).append("\n\n");
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
