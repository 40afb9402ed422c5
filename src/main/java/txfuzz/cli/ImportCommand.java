package txfuzz.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import txfuzz.campaign.Oracles;
import txfuzz.dbms.Targets;
import txfuzz.gen.ForeignInstrumentation;
import txfuzz.imports.Importer;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

@Command(name = "import", description = "Read schedules written by others as case files, one per permutation or schedule: PostgreSQL"
        + " isolation-tester specs (.spec), mysqltest files (.test), plain schedules (.txt: setup lines, then T<n>: SQL lines)."
        + " Each case gets the row tracking a generated case gets, so every oracle judges it; a case with a statement that cannot be"
        + " instrumented is written plain, with the reason. replay, reduce and bisect run the cases.")
final class ImportCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Files to import.")
    List<Path> files;

    @Option(names = "--out", required = true, description = "Folder for the case files (created when missing).")
    Path out;

    @Option(names = "--dbms", description = "DBMS the cases are for. Default: a spec's PostgreSQL, a mysqltest file's MariaDB,"
            + " a plain schedule's '-- dbms:' line, else h2.")
    String dbms;

    @Option(names = "--isolation", description = "Isolation level of the transactions the file gives none (BEGIN ISOLATION LEVEL, SET TRANSACTION"
            + " ...). Default: the engine's default level (a plain schedule's '-- isolation:' line, or this, is needed).")
    String isolation;

    @Option(names = "--max-cases", description = "At most this many cases per file (a spec without permutations has every interleaving of its steps).")
    Integer maxCases;

    @Option(names = "--plain", description = "Write the cases as imported, without row tracking (only the oracles that need none judge them).")
    boolean plain;

    @Override
    public Integer call() {
        Importer.Options options = options(dbms, isolation, maxCases);
        Options.checkOut(out, "--out");
        // a file that cannot be read is one line and exit code 2; the other files go on
        List<String> unread = new java.util.ArrayList<>();
        List<Importer.FileImport> imports = new java.util.ArrayList<>();
        for (Path file : files) {
            try {
                imports.add(readOne(file, options));
            } catch (Main.UserError e) {
                unread.add(e.getMessage());
            }
        }
        // every case file's name, checked before any is written: never overwrite what this run did not write, nor what it wrote
        java.util.Set<Path> targets = new java.util.HashSet<>();
        for (Importer.FileImport f : imports) {
            for (int k = 0; k < f.cases().size(); k++) {
                Path target = out.resolve(Importer.caseFileName(f, k + 1));
                if (Files.exists(target)) {
                    throw new Main.UserError(target + " exists; import into a new folder");
                }
                if (!targets.add(target)) {
                    throw new Main.UserError("two files named " + f.file().getFileName() + " would write " + target + "; import them into separate folders");
                }
            }
        }
        int written = 0;
        for (Importer.FileImport f : imports) {
            System.out.println(summary(f));
            for (int k = 0; k < f.cases().size(); k++) {
                Path target = out.resolve(Importer.caseFileName(f, k + 1));
                TestCase c = f.cases().get(k).testCase();
                String how = "";
                if (!plain) {
                    try {
                        ForeignInstrumentation.Instrumented ins = ForeignInstrumentation.instrument(c, Targets.engine(c.dbms()).dialect());
                        if (ins.rowTrackingComplete()) {
                            c = ins.testCase();
                        } else {
                            how = " (plain: " + String.join(", ", Oracles.needingRowTracking()) + " " + ins.notApplicableBecause().orElseThrow() + ")";
                        }
                    } catch (RuntimeException e) { // the case stays plain, with the reason, rather than end the command
                        how = " (plain: " + String.join(", ", Oracles.needingRowTracking()) + " not applicable: the instrumentation failed: "
                                + Main.oneLine(String.valueOf(e.getMessage())) + ")";
                    }
                }
                try {
                    Files.writeString(target, CaseJson.write(c), java.nio.file.StandardOpenOption.CREATE_NEW);
                } catch (java.nio.file.FileAlreadyExistsException e) {
                    throw new Main.UserError(target + " exists; import into a new folder");
                } catch (IOException e) {
                    throw new Main.UserError("cannot write " + target + ": " + Options.reason(e));
                }
                System.out.println("  wrote " + target + how);
                written++;
            }
            for (String line : skippedLines(f)) {
                System.out.println("  " + line);
            }
            for (String l : f.leftOut()) {
                System.out.println("  left out: " + l);
            }
        }
        System.out.println("Wrote " + written + " case file" + (written == 1 ? "" : "s") + " into " + out);
        unread.forEach(reason -> System.err.println("txfuzz: " + reason));
        boolean nothingFrom = imports.stream().anyMatch(f -> f.cases().isEmpty());
        return unread.isEmpty() && !nothingFrom ? Main.OK : Main.USAGE;
    }

    static Importer.Options options(String dbms, String isolation, Integer maxCases) {
        if (dbms != null) {
            Options.checkDbms(dbms);
        }
        IsolationLevel level = null;
        if (isolation != null) {
            level = IsolationLevel.parse(isolation);
            if (level == null) {
                throw new Main.UserError("unknown isolation level '" + isolation + "'");
            }
        }
        if (maxCases != null && maxCases < 1) {
            throw new Main.UserError("--max-cases must be at least 1");
        }
        return new Importer.Options(dbms, level, maxCases == null ? Integer.MAX_VALUE : maxCases);
    }

    static Importer.FileImport readOne(Path file, Importer.Options options) {
        try {
            return Importer.read(file, options);
        } catch (IllegalArgumentException e) {
            throw new Main.UserError(Main.oneLine(e.getMessage()));
        }
    }

    /** The skipped schedules, one line per reason (a spec's permutations mostly share theirs). */
    static List<String> skippedLines(Importer.FileImport f) {
        java.util.Map<String, List<String>> byReason = new java.util.LinkedHashMap<>();
        f.skipped().forEach(s -> byReason.computeIfAbsent(s.reason(), r -> new java.util.ArrayList<>()).add(s.schedule()));
        List<String> out = new java.util.ArrayList<>();
        byReason.forEach((reason, schedules) -> out.add("skipped " + (schedules.size() == 1 ? schedules.get(0)
                : schedules.size() + " schedules (" + schedules.get(0) + ", …)") + ": " + reason));
        return out;
    }

    static String summary(Importer.FileImport f) {
        return f.file().getFileName() + ": " + f.schedules() + " schedule" + (f.schedules() == 1 ? "" : "s") + ", " + f.cases().size()
                + " imported, " + f.skipped().size() + " skipped";
    }
}
