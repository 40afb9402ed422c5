package txfuzz.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import txfuzz.dbms.server.Leftovers;

/** Removes what txfuzz left in its private directory, never what a running txfuzz holds. */
@Command(name = "clean", mixinStandardHelpOptions = true, description = "Stop and remove what txfuzz left in its private directory"
        + " (txfuzz.home, $TXFUZZ_HOME or ~/.cache/txfuzz): servers and data directories of runs that were killed, and, when no txfuzz"
        + " runs, the unpacked server binaries and everything else there. Never touches what a running txfuzz holds.")
final class CleanCommand implements Callable<Integer> {
    @Option(names = "--dry-run", description = "Say what would be stopped and removed; change nothing.")
    boolean dryRun;

    @Override
    public Integer call() {
        try {
            Leftovers.clean(dryRun, System.out::println);
        } catch (IllegalStateException e) {
            throw new Main.UserError(e.getMessage()); // a private directory txfuzz refuses: one line, the reason and the fix
        }
        return Main.OK;
    }
}
