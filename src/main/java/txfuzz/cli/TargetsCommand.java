package txfuzz.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Targets;
import txfuzz.model.IsolationLevel;

/** Lists the DBMSs from their descriptions: starts no server and no embedded engine. */
@Command(name = "targets", mixinStandardHelpOptions = true, description = "List the DBMSs txfuzz can test, with the version it uses by default,"
        + " their isolation levels and modes. Starts nothing.")
final class TargetsCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        for (Engine e : Targets.engines()) {
            System.out.printf("%-8s %-36s levels: %-60s modes: %s%n", e.name(), e.defaultVersion(),
                    String.join(" ", e.isolationLevels().stream().map(IsolationLevel::name).toList()), String.join(" ", e.modes()));
        }
        return Main.OK;
    }
}
