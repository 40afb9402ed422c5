package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.Locale;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.model.TestCase;
import txfuzz.dbms.Database;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;

/**
 * Throughput of the concurrent runner on generated cases (40 transactions of up to 4 statements, 4
 * sessions), next to the controlled executor on the same cases. A measurement, not a check: run with
 * {@code mvn -o test -Dtest=ConcurrentRunnerThroughputTest -Dtxfuzz.bench=true}.
 */
@EnabledIfSystemProperty(named = "txfuzz.bench", matches = "true")
class ConcurrentRunnerThroughputTest {
    private static final long SECONDS = Long.getLong("txfuzz.bench.seconds", 8);

    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite", "duckdb", "postgres"})
    void measure(String dbms) throws Exception {
        Target target = dbms.equals("postgres") ? sharedPostgres() : Targets.create(dbms);
        CaseGenerator gen = new CaseGenerator(new GenConfig(3, 5, 5, 40, 4));
        try (ConcurrentRunner concurrent = new ConcurrentRunner(target, ExecutorConfig.defaults());
             Executor controlled = new Executor(target, ExecutorConfig.defaults())) {
            // warm-up
            for (int i = 0; i < 5; i++) {
                TestCase c = gen.generate(dbms, target.dialect(), target.defaultIsolationLevel(), "default", 7, i);
                concurrent.run(c, 4);
            }
            Tally conc = new Tally();
            long deadline = System.nanoTime() + SECONDS * 1_000_000_000L;
            for (long it = 100; System.nanoTime() < deadline; it++) {
                TestCase c = gen.generate(dbms, target.dialect(), target.defaultIsolationLevel(), "default", 7, it);
                long t0 = System.nanoTime();
                ConcurrentRun run;
                long t1;
                long t2;
                try (Database db = target.freshDatabase()) {
                    t1 = System.nanoTime();
                    run = concurrent.run(c, 4, db);
                    t2 = System.nanoTime();
                } catch (SetupFailedException e) {
                    continue;
                }
                conc.add(c, run.trace(), System.nanoTime() - t0);
                conc.runNanos += t2 - t1;
                assertEquals(c.transactions().size(), run.trace().outcomes().size());
            }
            Tally ctrl = new Tally();
            deadline = System.nanoTime() + SECONDS / 2 * 1_000_000_000L;
            for (long it = 100; System.nanoTime() < deadline; it++) {
                TestCase c = gen.generate(dbms, target.dialect(), target.defaultIsolationLevel(), "default", 7, it);
                long t0 = System.nanoTime();
                try {
                    ctrl.add(c, controlled.run(c), System.nanoTime() - t0);
                } catch (SetupFailedException e) {
                    // skip
                }
            }
            System.out.printf(Locale.ROOT, "THROUGHPUT %-8s %s level=%s%n  concurrent(4 sessions): %s%n  controlled executor:    %s%n",
                    dbms, target.version(), target.defaultIsolationLevel(), conc, ctrl);
        } finally {
            if (!dbms.equals("postgres")) {
                target.close();
            }
        }
    }

    private static Target sharedPostgres() {
        try {
            Method m = Class.forName("txfuzz.dbms.postgres.SharedServer").getDeclaredMethod("target");
            m.setAccessible(true);
            return (Target) m.invoke(null);
        } catch (ReflectiveOperationException e) {
            return Targets.create("postgres");
        }
    }

    private static final class Tally {
        long cases;
        long txns;
        long committed;
        long aborted;
        long stmts;
        long failedStmts;
        long autocommit;
        long hung;
        long stalls;
        long nanos;
        /** Only the run itself (setup SQL, sessions, final state), without creating and dropping the database. */
        long runNanos;

        void add(TestCase c, Trace t, long ns) {
            cases++;
            txns += t.outcomes().size();
            committed += t.outcomes().values().stream().filter(o -> o.status().committed()).count();
            aborted += t.outcomes().values().stream().filter(o -> o.status() == TxnStatus.ABORTED).count();
            stmts += t.schedule().size();
            failedStmts += t.schedule().stream().filter(e -> e.result().failed()).count();
            autocommit += c.transactions().stream().filter(x -> !x.explicit()).count();
            hung += t.hung().size();
            stalls += t.stalls();
            nanos += ns;
        }

        @Override
        public String toString() {
            double s = nanos / 1e9;
            return String.format(Locale.ROOT, "%d cases in %.1f s: %.0f txn/s (%.0f committed/s, %.0f%% aborted, %.0f%% autocommit), "
                            + "%.0f stmt/s (%.0f%% failed), %.1f ms/case%s, hung %d, stalls %d",
                    cases, s, txns / s, committed / s, 100.0 * aborted / Math.max(1, txns), 100.0 * autocommit / Math.max(1, txns),
                    stmts / s, 100.0 * failedStmts / Math.max(1, stmts), s * 1000 / Math.max(1, cases),
                    runNanos == 0 ? "" : String.format(Locale.ROOT, " (%.1f ms without creating/dropping the database: %.0f txn/s)",
                            runNanos / 1e6 / Math.max(1, cases), txns / (runNanos / 1e9)), hung, stalls);
        }
    }
}
