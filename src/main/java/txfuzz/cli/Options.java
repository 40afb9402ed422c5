package txfuzz.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.campaign.CampaignConfig;
import txfuzz.campaign.Oracles;
import txfuzz.model.CaseFormatException;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;

/** Parsing and checking of option values shared by the commands. */
final class Options {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");
    /** Longest --time and friends: deadlines are nanosecond clocks, and 100000 hours (over 11 years) is far enough. */
    static final Duration MAX_DURATION = Duration.ofHours(100_000);

    private Options() {
    }

    static Target target(String name) {
        return target(name, TargetOptions.none());
    }

    /**
     * The target, started or connected. Closed on JVM exit too, so Ctrl-C stops a server txfuzz
     * started (closing twice is harmless).
     */
    static Target target(String name, TargetOptions options) {
        Target target = open(name, options);
        try {
            Main.addShutdownHook(new Thread(target::close, "txfuzz-close-" + name));
        } catch (Main.Interrupted e) {
            target.close(); // Ctrl-C while it started: stop it here, no hook will
            throw e;
        }
        return target;
    }

    /** The target, without a shutdown hook: the caller arranges closing (see RunCommand). */
    static Target open(String name, TargetOptions options) {
        if (!Targets.exists(name)) {
            throw new Main.UserError("unknown DBMS '" + name + "'; known: " + String.join(", ", Targets.names()));
        }
        Target target;
        try {
            target = Targets.create(name, options);
        } catch (RuntimeException e) {
            if (Main.shutdownInProgress(e)) {
                throw new Main.Interrupted(); // Ctrl-C while the server started
            }
            if (e instanceof IllegalArgumentException) {
                throw new Main.UserError(Main.oneLine(e.getMessage()));
            }
            if (options.url() != null) {
                // nothing was started: a server given by --url could not be used
                throw new Main.UserError(Main.oneLine(e.getMessage()) + (options.password() != null ? ""
                        : "; no password was given: the variable --password-env names (TXFUZZ_PASSWORD by default) is not set"));
            }
            throw new Main.UserError("cannot start " + name + ": " + Main.oneLine(e.getMessage()));
        }
        return target;
    }

    /** Unknown DBMS names, before anything starts. */
    static void checkDbms(String name) {
        if (!Targets.exists(name)) {
            throw new Main.UserError("unknown DBMS '" + name + "'; known: " + String.join(", ", Targets.names()));
        }
    }

    /** Level names that name no isolation level at all: found before a DBMS starts (whether it offers them is checked after). */
    static void checkLevelNames(String spec) {
        if (spec == null || spec.equalsIgnoreCase("all")) {
            return;
        }
        for (String part : spec.split(",")) {
            if (!part.isBlank() && IsolationLevel.parse(part) == null) {
                throw new Main.UserError("unknown isolation level '" + part.trim() + "'; levels: "
                        + String.join(", ", java.util.Arrays.stream(IsolationLevel.values()).map(Enum::name).toList()) + " (or 'all')");
            }
        }
    }

    /**
     * An output folder ({@code option} names it in the message) that can be written: created when
     * missing, then proved writable by creating and deleting a file in it. Checked before the first
     * case runs and before any DBMS starts, so a finding is never lost to an unusable folder.
     */
    static void checkOut(java.nio.file.Path dir, String option) {
        if (java.nio.file.Files.exists(dir) && !java.nio.file.Files.isDirectory(dir)) {
            throw new Main.UserError(option + " " + dir + " is a file, not a folder");
        }
        try {
            java.nio.file.Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new Main.UserError("cannot create " + option + " folder " + dir + ": " + reason(e));
        }
        try {
            java.nio.file.Path probe = java.nio.file.Files.createTempFile(dir, ".txfuzz-write-probe-", ".tmp");
            java.nio.file.Files.delete(probe);
        } catch (java.io.IOException e) {
            throw new Main.UserError("cannot write into " + option + " folder " + dir + ": " + reason(e));
        }
    }

    /** Why the file system refused, in words (no exception class names). */
    static String reason(java.io.IOException e) {
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileAlreadyExistsException f) {
            return f.getFile() + " is a file";
        }
        if (e instanceof java.nio.file.NoSuchFileException f) {
            return "no such file or folder " + f.getFile();
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return (f.getFile() != null ? f.getFile() + ": " : "") + f.getReason();
        }
        return Main.oneLine(e.getMessage());
    }

    static List<IsolationLevel> levels(Target target, String spec) {
        if (spec == null || spec.equalsIgnoreCase("all")) {
            return target.isolationLevels();
        }
        List<IsolationLevel> out = new ArrayList<>();
        for (String part : spec.split(",")) {
            IsolationLevel l = IsolationLevel.parse(part);
            if (l == null || !target.isolationLevels().contains(l)) {
                throw new Main.UserError("isolation level '" + part.trim() + "' is not offered by " + target.name() + "; it offers: "
                        + String.join(", ", target.isolationLevels().stream().map(Enum::name).toList()) + " (or 'all')");
            }
            out.add(l);
        }
        if (out.isEmpty()) {
            throw new Main.UserError("--isolation names no level; give one or more of "
                    + String.join(", ", target.isolationLevels().stream().map(Enum::name).toList()) + ", or 'all'");
        }
        return out;
    }

    /** The modes asked for: none (the target's default), a comma-separated list, or 'all'. */
    static List<String> modes(Target target, String spec) {
        return modes(target.name(), target.modes(), spec);
    }

    /** The same, from a DBMS's description: nothing starts. */
    static List<String> modes(Engine engine, String spec) {
        return modes(engine.name(), engine.modes(), spec);
    }

    private static List<String> modes(String name, List<String> offered, String spec) {
        if (spec == null) {
            return List.of();
        }
        if (spec.equalsIgnoreCase("all")) {
            return offered;
        }
        List<String> out = new ArrayList<>();
        for (String part : list(spec)) {
            String m = part.toLowerCase(Locale.ROOT);
            if (!offered.contains(m)) {
                throw new Main.UserError("mode '" + part + "' is not offered by " + name + "; it offers: "
                        + String.join(", ", offered) + " (or 'all')");
            }
            out.add(m);
        }
        return out;
    }

    /** A DBMS's static description, or a one-line error naming the known ones. Starts nothing. */
    static Engine engine(String name) {
        checkDbms(name);
        return Targets.engine(name);
    }

    static CampaignConfig.Execution execution(String text) {
        try {
            return CampaignConfig.Execution.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new Main.UserError("--execution must be plain, prepared or mixed, not '" + text + "'");
        }
    }

    /** A duration with its unit (90s, 5m, 1h, 500ms); a one-line error naming {@code option} otherwise. */
    static Duration duration(String text, String option) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.matches("\\d+")) {
            throw new Main.UserError(option + " " + text.strip() + " has no unit; write e.g. " + t + "s, " + t + "m or " + t + "h");
        }
        Matcher m = DURATION.matcher(t);
        if (!m.matches()) {
            throw new Main.UserError("cannot read duration '" + text + "' for " + option + "; write e.g. 90s, 2m, 1h or 500ms");
        }
        Duration d;
        try {
            long n = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofSeconds(n);
            };
        } catch (NumberFormatException | ArithmeticException e) {
            d = null;
        }
        if (d == null || d.compareTo(MAX_DURATION) > 0) {
            throw new Main.UserError("duration '" + text.strip() + "' for " + option + " is too long; the maximum is " + MAX_DURATION.toHours() + "h");
        }
        return d;
    }

    /** Shortest time limit (--time): under a second, no case of any engine gets to run, and the run would only pretend. */
    static final Duration MIN_TIME_LIMIT = Duration.ofSeconds(1);

    /** A time limit for running cases ({@code option}: --time): a duration with its unit, at least {@link #MIN_TIME_LIMIT}. */
    static Duration timeLimit(String text, String option) {
        Duration d = duration(text, option);
        if (d.compareTo(MIN_TIME_LIMIT) < 0) {
            throw new Main.UserError(option + " " + text.strip() + " leaves no time to run a case; give at least 1s");
        }
        return d;
    }

    /** A case count ({@code option}: --tests): at least one, since a run of no cases would report a clean result it never checked. */
    static int caseLimit(int tests, String option) {
        if (tests < 1) {
            throw new Main.UserError(option + " must be at least 1, not " + tests);
        }
        return tests;
    }

    /** What a run will do, as its first line says it: "300 cases", "for 90s", "at most 300 cases or 90s". */
    static String limits(Integer tests, String time) {
        String cases = tests == null ? null : tests + (tests == 1 ? " case" : " cases");
        if (time == null) {
            return cases;
        }
        return cases == null ? "for " + time.strip() : "at most " + cases + " or " + time.strip();
    }

    static List<String> list(String csv) {
        List<String> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }

    /** A case file, or a one-line error naming the file and line. */
    static TestCase readCase(java.nio.file.Path file) {
        try {
            return CaseJson.read(file);
        } catch (CaseFormatException e) {
            throw new Main.UserError(e.getMessage());
        }
    }

    /** Oracle names, comma-separated, checked against the registry: a one-line error naming the known ones. Makes no oracle. */
    static List<String> oracles(String spec) {
        List<String> names = list(spec);
        try {
            Oracles.check(names);
        } catch (IllegalArgumentException e) {
            throw new Main.UserError(e.getMessage());
        }
        return names;
    }

    private static final Pattern OWN_SETUP = Pattern.compile("^\\s*(CREATE\\s+(TABLE|(UNIQUE\\s+)?INDEX)|INSERT|REPLACE)\\b",
            Pattern.CASE_INSENSITIVE);

    /**
     * Whether {@code target} can run case {@code c} (its level and mode), and — on a server given
     * by URL — whether the case only creates and fills its own tables: a case file, perhaps written
     * by someone else, must not drop or alter anything txfuzz did not create.
     */
    static void checkRunnable(Target target, TestCase c, boolean serverByUrl) {
        if (!target.isolationLevels().contains(c.isolation())) {
            throw new Main.UserError(target.name() + " does not offer " + c.isolation().name());
        }
        if (!target.modes().contains(c.mode())) {
            throw new Main.UserError(target.name() + " has no mode '" + c.mode() + "'; it has: " + String.join(", ", target.modes()));
        }
        if (!serverByUrl) {
            return;
        }
        for (String sql : c.setup()) {
            if (!OWN_SETUP.matcher(sql).find()) {
                throw new Main.UserError("refusing to run on a server given by --url: the case's setup has a statement other than "
                        + "CREATE TABLE/INDEX or INSERT: " + sql.strip().lines().findFirst().orElse(""));
            }
        }
        for (var t : c.transactions()) {
            for (var st : t.statements()) {
                if (st.kind() == StmtKind.OTHER) {
                    throw new Main.UserError("refusing to run on a server given by --url: T" + t.id() + " has a statement that is not "
                            + "a query, a write or transaction control: " + st.sql().strip().lines().findFirst().orElse(""));
                }
            }
        }
    }

    /** --generator and --patterns; a one-line error for an unknown generator or pattern. */
    static txfuzz.gen.Generation generation(String generator, String patterns) {
        try {
            return txfuzz.gen.Generation.parse(generator, patterns);
        } catch (IllegalArgumentException e) {
            throw new Main.UserError(e.getMessage());
        }
    }

    /**
     * The oracles when --oracle is not given: WriteCheck's for random cases; for pattern cases
     * APTrans' two (the explicit one, and the isolation oracle, which sees the anomaly a pattern aims at).
     */
    static String defaultOracles(txfuzz.gen.Generation generation) {
        return String.join(",", Oracles.defaults(generation.kind()));
    }
}
