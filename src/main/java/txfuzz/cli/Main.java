package txfuzz.cli;

import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * Entry point: picocli dispatch, with one-line errors instead of stack traces. Exit codes: 0 no bug
 * candidate, 1 a bug candidate, 2 a usage or setup error, 3 an internal error (a bug in txfuzz),
 * 130 interrupted (SIGINT, Ctrl-C), 143 terminated (SIGTERM): 128 + the signal, as a shell reports it.
 */
@Command(name = "txfuzz", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Finds transaction bugs in relational DBMSs.",
        subcommands = {RunCommand.class, CompatCommand.class, MergeCommand.class, ReplayCommand.class, ImportCommand.class, JudgeSuiteCommand.class, BisectCommand.class, ReduceCommand.class, CheckCommand.class, IsolationTableCommand.class, TargetsCommand.class, PatternsCommand.class, BenchCommand.class, CleanCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    /** txfuzz's own version (and commit, when the launcher found one), from the build: not a second copy of the pom's. */
    static final class Version implements picocli.CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            txfuzz.campaign.BuildInfo b = txfuzz.campaign.BuildInfo.current();
            return new String[] {"txfuzz " + b.version() + (b.gitCommit() == null ? "" : " (" + b.gitCommit().substring(0, 12)
                    + (Boolean.TRUE.equals(b.gitDirty()) ? ", modified" : "") + ")")};
        }
    }

    public static final int OK = 0;
    public static final int FOUND = 1;
    public static final int USAGE = 2;
    public static final int INTERNAL = 3;
    /** 128 + SIGINT, as a shell reports a command Ctrl-C stopped. */
    public static final int INTERRUPTED = 130;
    /** 128 + SIGTERM, as a shell reports a command that {@code kill} (or a CI runner's time-out) stopped. */
    public static final int TERMINATED = 143;

    /** The environment variable that turns on --debug for every command. */
    static final String DEBUG_ENV = "TXFUZZ_DEBUG";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Set when Ctrl-C started the JVM's shutdown: System.exit would then block forever. */
    static final AtomicBoolean SHUTTING_DOWN = new AtomicBoolean();

    /** The signal (SIGINT, SIGTERM) that started the JVM's exit; null while none has. */
    private static final java.util.concurrent.atomic.AtomicReference<String> SIGNAL = new java.util.concurrent.atomic.AtomicReference<>();

    /** "txfuzz: interrupted" has been said (it is said once, by whoever knows most about what was cut short). */
    private static final AtomicBoolean INTERRUPTION_SAID = new AtomicBoolean();

    /** Counted down by a command that says itself how its interrupted work ended (see {@link #sayingInterruption}). */
    private static volatile java.util.concurrent.CountDownLatch interruptionSaid;

    /** --debug (on every subcommand) or TXFUZZ_DEBUG=1: errors come with their stack trace. */
    private static final AtomicBoolean DEBUG = new AtomicBoolean();

    @Option(names = "--debug", scope = ScopeType.INHERIT,
            description = "On an error, print its stack trace too (also: environment variable TXFUZZ_DEBUG=1).")
    void debug(boolean on) {
        DEBUG.set(on);
    }

    public static void main(String[] args) {
        watchSignals();
        int code = execute(args);
        if (!SHUTTING_DOWN.get()) {
            System.exit(code);
        }
    }

    /** Runs the command line and returns the exit code (see the class comment). Every error is one line on stderr. */
    public static int execute(String... args) {
        DEBUG.set(debugFromEnvironment());
        CommandLine cli = new CommandLine(new Main());
        cli.setParameterExceptionHandler((ex, a) -> {
            debugTrace(ex);
            System.err.println("txfuzz: " + oneLine(ex.getMessage()) + " (see 'txfuzz " + commandName(ex.getCommandLine()) + "--help')");
            return USAGE;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> report(ex));
        try {
            return cli.execute(args);
        } catch (RuntimeException | Error e) {
            return report(e); // thrown outside the command (by picocli itself): still one line
        }
    }

    /**
     * Notes which signal stops the JVM (the JVM's own handling, which runs the shutdown hooks and exits
     * with 128 + the signal, follows unchanged), and on such an exit says "txfuzz: interrupted" once,
     * whatever the command was doing (starting a server, unpacking its binaries, running cases).
     */
    private static void watchSignals() {
        for (String name : java.util.List.of("INT", "TERM")) {
            try {
                sun.misc.Signal signal = new sun.misc.Signal(name);
                sun.misc.SignalHandler[] jvms = new sun.misc.SignalHandler[1];
                jvms[0] = sun.misc.Signal.handle(signal, s -> {
                    SIGNAL.compareAndSet(null, "SIG" + s.getName());
                    SHUTTING_DOWN.set(true);
                    jvms[0].handle(s);
                });
                if (jvms[0] == sun.misc.SignalHandler.SIG_DFL || jvms[0] == sun.misc.SignalHandler.SIG_IGN) {
                    sun.misc.Signal.handle(signal, jvms[0]); // not the JVM's own handling (e.g. ignored by the parent): leave it so
                }
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // the JVM keeps the signal to itself (-Xrs): its exit still runs the hooks, only the signal's name is unknown
            }
        }
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                if (SIGNAL.get() == null) {
                    return; // an ordinary exit
                }
                java.util.concurrent.CountDownLatch said = interruptionSaid;
                if (said != null) {
                    try {
                        said.await(60, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                sayInterrupted("");
            }, "txfuzz-interrupted"));
        } catch (IllegalStateException alreadyExiting) {
            SHUTTING_DOWN.set(true);
        }
    }

    /** The signal that is stopping the JVM (SIGINT, SIGTERM), or null. */
    static String signal() {
        return SIGNAL.get();
    }

    /**
     * For a command that says itself how its interrupted work ended: the exit's own "txfuzz: interrupted"
     * waits until the returned latch is counted down (or {@link #sayInterrupted} was called).
     */
    static java.util.concurrent.CountDownLatch sayingInterruption() {
        java.util.concurrent.CountDownLatch l = new java.util.concurrent.CountDownLatch(1);
        interruptionSaid = l;
        return l;
    }

    /** Prints "txfuzz: interrupted" (with {@code detail} after it) on stderr, unless it was already said. */
    static void sayInterrupted(String detail) {
        String s = SIGNAL.get();
        if (s == null || INTERRUPTION_SAID.compareAndSet(false, true)) { // without a signal nothing else says it
            System.err.println("txfuzz: interrupted" + (s == null ? "" : " (" + s + ")") + detail);
            System.err.flush();
        }
    }

    /** Prints {@code ex} as one line (with its stack trace under --debug) and returns its exit code. */
    static int report(Throwable ex) {
        debugTrace(ex);
        if (ex instanceof UserError) {
            System.err.println("txfuzz: " + oneLine(ex.getMessage()));
            return USAGE;
        }
        if (ex instanceof Interrupted || shutdownInProgress(ex)) {
            SHUTTING_DOWN.set(true); // Ctrl-C: the JVM is exiting by itself; System.exit now would block
            sayInterrupted("");
            return "SIGTERM".equals(SIGNAL.get()) ? TERMINATED : INTERRUPTED;
        }
        if (ex instanceof UncheckedIOException) {
            // the file system refused (disk full, permissions changed under the run): a setup error, not a bug
            System.err.println("txfuzz: " + oneLine(ex.getMessage()));
            return USAGE;
        }
        String msg = ex.getMessage() == null || ex.getMessage().isBlank() ? ex.getClass().getSimpleName() : oneLine(ex.getMessage());
        System.err.println("txfuzz: internal error: " + msg + " (run with --debug for the stack trace)");
        return INTERNAL;
    }

    private static boolean debugFromEnvironment() {
        String v = System.getenv(DEBUG_ENV);
        return v != null && !v.isBlank() && !v.equals("0") && !v.equalsIgnoreCase("false");
    }

    private static void debugTrace(Throwable ex) {
        if (DEBUG.get()) {
            ex.printStackTrace(System.err);
        }
    }

    /** Whether {@code ex} (or a cause) is the JVM refusing a shutdown hook because Ctrl-C already started its exit. */
    static boolean shutdownInProgress(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof IllegalStateException && "Shutdown in progress".equals(t.getMessage())) {
                return true;
            }
        }
        return false;
    }

    /** Registers a shutdown hook; when Ctrl-C already started the JVM's exit, a quiet {@link Interrupted} instead. */
    static void addShutdownHook(Thread hook) {
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException e) {
            throw new Interrupted();
        }
    }

    /** Removes a hook; nothing to do while the JVM exits (the hook is running or about to). */
    static void removeShutdownHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException alreadyExiting) {
            SHUTTING_DOWN.set(true);
        }
    }

    /** The first non-blank line of {@code s}, stripped ("" for null): what a one-line error can show of a longer text. */
    static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        return s.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("");
    }

    private static String commandName(CommandLine c) {
        return c.getParent() == null ? "" : c.getCommandName() + " ";
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** An error in what the user asked for; its message is the whole story. */
    static final class UserError extends RuntimeException {
        UserError(String message) {
            super(message);
        }
    }

    /** Ctrl-C stopped the command: a quiet exit, code 130. */
    static final class Interrupted extends RuntimeException {
        Interrupted() {
            super("interrupted");
        }
    }
}
