package txfuzz.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point: picocli dispatch, with one-line errors instead of stack traces. */
@Command(name = "txfuzz", mixinStandardHelpOptions = true, version = "txfuzz 0.1.0",
        description = "Finds transaction bugs in relational DBMSs.",
        subcommands = {RunCommand.class, ReplayCommand.class, ReduceCommand.class, CheckCommand.class, IsolationTableCommand.class, TargetsCommand.class, BenchCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    public static final int OK = 0;
    public static final int FOUND = 1;
    public static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Set when Ctrl-C started the JVM's shutdown: System.exit would then block forever. */
    static final java.util.concurrent.atomic.AtomicBoolean SHUTTING_DOWN = new java.util.concurrent.atomic.AtomicBoolean();

    public static void main(String[] args) {
        int code = execute(args);
        if (!SHUTTING_DOWN.get()) {
            System.exit(code);
        }
    }

    /** Runs the command line and returns the exit code: 0 clean, 1 bug candidate found, 2 usage or setup error. */
    public static int execute(String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setParameterExceptionHandler((ex, a) -> {
            System.err.println("txfuzz: " + ex.getMessage());
            System.err.println("Try 'txfuzz " + commandName(ex.getCommandLine()) + "--help' for usage.");
            return USAGE;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            System.err.println("txfuzz: " + (ex instanceof UserError ? ex.getMessage() : describe(ex)));
            return USAGE;
        });
        return cli.execute(args);
    }

    private static String commandName(CommandLine c) {
        return c.getParent() == null ? "" : c.getCommandName() + " ";
    }

    private static String describe(Throwable ex) {
        String msg = ex.getMessage();
        return ex.getClass().getSimpleName() + (msg == null ? "" : ": " + msg.lines().findFirst().orElse(""));
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
}
