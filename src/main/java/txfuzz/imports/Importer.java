package txfuzz.imports;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Targets;
import txfuzz.model.CaseSource;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/**
 * {@code txfuzz import}: reads schedules written by others — PostgreSQL isolation-tester specs ({@code .spec}),
 * mysqltest files ({@code .test}), plain schedules ({@code .txt}, {@code .schedule}) — as plain cases, one per
 * permutation or schedule. What a case cannot express is skipped with a one-line reason, never guessed.
 */
public final class Importer {
    private Importer() {
    }

    /**
     * @param dbms        the DBMS the cases are for; null: the one whose tests the format holds
     * @param isolation   {@code --isolation}: the level of transactions the file gives none; null: the engine's default
     * @param maxPerFile  at most this many cases per file (a spec without permutations has every interleaving)
     */
    public record Options(String dbms, IsolationLevel isolation, int maxPerFile) {
        public static Options defaults() {
            return new Options(null, null, Integer.MAX_VALUE);
        }
    }

    /** A schedule of a file as a case. */
    public record Imported(String schedule, TestCase testCase) {
    }

    /** A schedule of a file that no case expresses, and why. */
    public record Skipped(String schedule, String reason) {
    }

    /**
     * What a file gave.
     *
     * @param schedules how many schedules it has (permutations of a spec, parts of a mysqltest file)
     * @param cases     the schedules read as cases (at most {@link Options#maxPerFile()})
     * @param skipped   the schedules (or the whole file) it could not express
     * @param leftOut   commands of the file left out of every schedule, and why (mysqltest)
     */
    public record FileImport(Path file, CaseSource.Format format, long schedules, List<Imported> cases, List<Skipped> skipped, List<String> leftOut) {
    }

    /** The name of the k-th (1-based) case of {@code f}: the source file's name and k, e.g. {@code simple-write-skew.spec-07.case.json}. */
    public static String caseFileName(FileImport f, int k) {
        int width = Integer.toString(Math.max(1, f.cases().size())).length();
        return f.file().getFileName() + "-" + String.format(Locale.ROOT, "%0" + width + "d", k) + ".case.json";
    }

    /** The format of {@code file} by its name, or null when it is none of the formats read. */
    public static CaseSource.Format formatOf(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".spec")) {
            return CaseSource.Format.ISOLATION_SPEC;
        }
        if (name.endsWith(".test")) {
            return CaseSource.Format.MYSQLTEST;
        }
        if (name.endsWith(".txt") || name.endsWith(".schedule")) {
            return CaseSource.Format.SCHEDULE;
        }
        return null;
    }

    /** The one-line reason for a schedule the importer failed on unexpectedly. */
    private static String cannotRead(RuntimeException e) {
        return "txfuzz cannot read it (" + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replaceAll("\\s+", " ").strip() + ")";
    }

    /** Reads {@code file}; IllegalArgumentException (one line) for a file that cannot be read or has no format read here. */
    public static FileImport read(Path file, Options options) {
        CaseSource.Format format = formatOf(file);
        if (format == null) {
            throw new IllegalArgumentException(file + ": not a format txfuzz imports (.spec, .test, .txt or .schedule)");
        }
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read: " + e.getMessage());
        }
        return read(text, file.getFileName().toString(), format, options, file);
    }

    /** Reads {@code text}, the contents of a file named {@code fileName}. */
    public static FileImport read(String text, String fileName, CaseSource.Format format, Options options, Path file) {
        String dbms = options.dbms() != null ? options.dbms() : Targets.nativeTo(format);
        Engine engine = Targets.engine(dbms);
        IsolationLevel engineDefault = engine.defaultIsolationLevel();
        List<Schedule> schedules = new ArrayList<>();
        List<Skipped> skipped = new ArrayList<>();
        List<String> leftOut = List.of();
        long total;
        try {
            switch (format) {
                case ISOLATION_SPEC -> {
                    IsolationSpec spec = IsolationSpec.parse(text);
                    total = spec.scheduleCount();
                    List<List<String>> perms = spec.schedules(options.maxPerFile());
                    for (int i = 0; i < perms.size(); i++) {
                        schedules.add(SpecSchedule.of(spec, perms.get(i), fileName, i + 1, engineDefault));
                    }
                }
                case MYSQLTEST -> {
                    MysqlTest.Parts parts = MysqlTest.read(text, fileName, engineDefault);
                    schedules.addAll(parts.schedules());
                    skipped.addAll(parts.skipped());
                    leftOut = parts.leftOut();
                    total = parts.schedules().size() + parts.skipped().size();
                }
                case SCHEDULE -> {
                    Schedule plain = PlainSchedule.read(text, fileName);
                    if (options.dbms() == null && plain.dbms() != null) { // the DBMS its -- dbms: line names, unless --dbms names one
                        dbms = plain.dbms();
                        engine = Targets.engine(dbms);
                    }
                    schedules.add(plain);
                    total = 1;
                }
                default -> throw new IllegalStateException(format.name());
            }
        } catch (Unexpressible e) {
            return new FileImport(file, format, 0, List.of(), List.of(new Skipped("the whole file", e.getMessage())), leftOut);
        } catch (RuntimeException e) { // a form the readers do not foresee: a reason for this file, never a crash of the command
            return new FileImport(file, format, 0, List.of(), List.of(new Skipped("the whole file", cannotRead(e))), leftOut);
        }
        List<Imported> cases = new ArrayList<>();
        for (int i = 0; i < schedules.size(); i++) {
            Schedule s = schedules.get(i);
            if (cases.size() >= options.maxPerFile()) {
                break;
            }
            try {
                cases.add(new Imported(s.source().schedule(), ScheduleCase.toCase(s, dbms, options.isolation(), engine, i + 1)));
            } catch (Unexpressible e) {
                skipped.add(new Skipped(s.source().schedule(), e.getMessage()));
            } catch (IllegalArgumentException e) { // the case's own rules (a transaction's shape)
                skipped.add(new Skipped(s.source().schedule(), e.getMessage()));
            } catch (RuntimeException e) {
                skipped.add(new Skipped(s.source().schedule(), cannotRead(e)));
            }
        }
        return new FileImport(file, format, total, cases, skipped, leftOut);
    }
}
