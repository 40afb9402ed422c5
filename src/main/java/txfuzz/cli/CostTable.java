package txfuzz.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import txfuzz.campaign.CaseCosts;

/**
 * bench's second table: what a case costs per phase and oracle, per engine and number of workers, in milliseconds
 * of thread time per case and as a share of the campaign's thread time (the workers' wall time, and the filer's).
 */
final class CostTable {
    /** One campaign's costs: {@code label} names the row's workers ("2", "2, warm-up"). */
    record Row(String dbms, String label, int workers, long cases, long wallNanos, List<CaseCosts.Phase> phases) {
        long nanos(String phase) {
            return phases.stream().filter(p -> p.name().equals(phase)).mapToLong(CaseCosts.Phase::nanos).sum();
        }

        private long timedOnWorkers() {
            return phases.stream().filter(p -> !p.name().equals(CaseCosts.FILER)).mapToLong(CaseCosts.Phase::nanos).sum();
        }

        /** The workers' time no phase accounts for (starting executors and oracles, waiting between cases). */
        long untimedNanos() {
            return Math.max(0, workers * wallNanos - timedOnWorkers());
        }

        /** The workers' time (never less than what their phases timed) and, with several workers, the filer thread's beside it. */
        long totalNanos() {
            return Math.max(workers * wallNanos, timedOnWorkers()) + nanos(CaseCosts.FILER);
        }
    }

    private final List<String> oracles;
    private final List<Row> rows = new ArrayList<>();

    CostTable(List<String> oracles) {
        this.oracles = List.copyOf(oracles);
    }

    void add(Row row) {
        rows.add(row);
    }

    /** The columns, in the order a case goes through them. */
    private List<Column> columns() {
        List<Column> out = new ArrayList<>();
        out.add(Column.of("generation", CaseCosts.GENERATION));
        out.add(Column.of("run", CaseCosts.RUN));
        for (String o : oracles) {
            out.add(Column.of(o, CaseCosts.oracle(o)));
        }
        out.add(Column.of("confirmation", CaseCosts.CONFIRMATION));
        out.add(Column.of("self-check", CaseCosts.SELF_CHECK));
        out.add(Column.of("filing, reduction", CaseCosts.FILING, CaseCosts.FILER));
        out.add(new Column("untimed", List.of()));
        return out;
    }

    /** A column: the sum of {@code phases}; none: the untimed rest. */
    private record Column(String name, List<String> phases) {
        static Column of(String name, String... phases) {
            return new Column(name, List.of(phases));
        }

        long nanos(Row r) {
            return phases.isEmpty() ? r.untimedNanos() : phases.stream().mapToLong(r::nanos).sum();
        }

        /** Whether the campaign entered any of the column's phases (a phase it never entered shows as "-", not as 0). */
        boolean ran(Row r) {
            return phases.isEmpty() || r.phases().stream().anyMatch(p -> phases.contains(p.name()));
        }
    }

    /** Prints the table, if any campaign was measured. */
    void print(PrintStream out) {
        if (rows.isEmpty()) {
            return;
        }
        List<Column> columns = columns();
        out.println();
        out.println("Cost per case: ms of thread time per case (share of the campaign's thread time: the workers' wall time, and the filer's"
                + " with 2+ workers)");
        out.println();
        StringBuilder header = new StringBuilder("| DBMS | workers | cases | total ms/case |");
        StringBuilder rule = new StringBuilder("|---|---|---|---|");
        for (Column c : columns) {
            header.append(' ').append(c.name()).append(" |");
            rule.append("---|");
        }
        out.println(header);
        out.println(rule);
        for (Row r : rows) {
            long cases = Math.max(1, r.cases());
            long total = Math.max(1, r.totalNanos());
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "| %s | %s | %d | %.1f |", r.dbms(), r.label(), r.cases(),
                    total / 1e6 / cases));
            for (Column c : columns) {
                long n = c.nanos(r);
                line.append(c.ran(r) ? String.format(Locale.ROOT, " %.2f (%.0f%%) |", n / 1e6 / cases, 100.0 * n / total) : " - |");
            }
            out.println(line);
        }
        out.println();
        out.println("An oracle's column is its judging of the case's run (its serial replays, simulations, checks); confirmation is the"
                + " re-run of a case with a violation and its judging; self-check the plain twin of an instrumented case, run and compared;"
                + " filing writes findings and reduces them (on the filer thread with 2+ workers); untimed is the rest of the workers' time.");
    }
}
