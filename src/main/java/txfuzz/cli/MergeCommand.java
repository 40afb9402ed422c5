package txfuzz.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import txfuzz.campaign.Merge;

@Command(name = "merge", description = "Merge the output folders of runs that split one campaign (run --worker i/N) into one: summary.json,"
        + " events.jsonl and findings by signature. Safe to run again as more runs arrive.")
final class MergeCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "OUT", description = "The runs' output folders (their --out).")
    List<Path> runs;

    @Option(names = "--out", required = true, paramLabel = "ALL", description = "Where the merge goes: a new or empty folder, or an earlier merge's"
            + " to bring up to date.")
    Path out;

    @Override
    public Integer call() {
        Merge.Result r;
        try {
            r = Merge.merge(runs, out);
        } catch (Merge.Refused e) {
            throw new Main.UserError(e.getMessage());
        }
        System.out.printf("merged %d run%s (%d cases): %d unique finding%s (%d bug candidate%s), %d duplicate%s; %d finding folder%s copied;"
                        + " see %s, %s and %s%n", r.runs(), r.runs() == 1 ? "" : "s", r.cases(), r.unique(), r.unique() == 1 ? "" : "s",
                r.uniqueBugCandidates(), r.uniqueBugCandidates() == 1 ? "" : "s", r.duplicates(), r.duplicates() == 1 ? "" : "s", r.copied(),
                r.copied() == 1 ? "" : "s", out.resolve("summary.json"), out.resolve("findings").resolve("index.md"), out.resolve("signatures.txt"));
        return Main.OK;
    }
}
