package txfuzz.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;

@Command(name = "targets", mixinStandardHelpOptions = true, description = "List the DBMSs txfuzz can test, with their isolation levels.")
final class TargetsCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        for (String name : Targets.names()) {
            try (Target t = Targets.create(name)) {
                System.out.printf("%-8s %-36s levels: %-60s modes: %s%n", name, t.version(),
                        String.join(" ", t.isolationLevels().stream().map(IsolationLevel::name).toList()), String.join(" ", t.modes()));
            } catch (RuntimeException e) {
                System.out.printf("%-8s (unavailable: %s)%n", name, e.getMessage());
            }
        }
        return Main.OK;
    }
}
