package txfuzz.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternCatalogue;
import txfuzz.model.IsolationLevel;

@Command(name = "patterns", description = "Lists the anomaly patterns of --generator pattern (APTrans): name, operations, the levels"
        + " that proscribe each, and where it comes from.")
final class PatternsCommand implements Callable<Integer> {
    @Option(names = "--level", description = "Only the patterns this isolation level proscribes (e.g. RR).")
    String level;

    @Override
    public Integer call() {
        List<AnomalyPattern> all = PatternCatalogue.bundled().all();
        if (level != null) {
            IsolationLevel l = IsolationLevel.parse(level);
            if (l == null) {
                throw new Main.UserError("unknown isolation level '" + level + "' (RU, RC, RR, SI, SER)");
            }
            all = PatternCatalogue.proscribedAt(all, l);
        }
        System.out.println("| pattern | operations | proscribed at | source and notes |");
        System.out.println("|---|---|---|---|");
        for (AnomalyPattern p : all) {
            String levels = p.proscribedAt().isEmpty() ? "none (a control)"
                    : p.levelCodes();
            System.out.printf("| %s | `%s` | %s | %s |%n", p.name(), p.text(), levels, p.note());
        }
        return Main.OK;
    }
}
