package txfuzz.campaign;

import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.target.ErrorClass;

/** Running figures of a campaign. Mutable, owned by the campaign loop. */
final class Stats {
    long cases;
    long invalidCases;
    long transactions;
    long statements;
    long blockedStatements;
    long invalidStatements;
    long stalls;
    long bugCandidates;
    long documented;
    long flaky;
    final long startNanos = System.nanoTime();

    void add(TestCase c, Trace t) {
        cases++;
        transactions += c.transactions().size();
        statements += t.schedule().size();
        blockedStatements += t.blockedCount();
        stalls += t.stalls();
        for (ExecutedStmt e : t.schedule()) {
            if (e.result().failed() && e.result().errorClass() == ErrorClass.INVALID_STATEMENT) {
                invalidStatements++;
            }
        }
    }

    double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    double share(long part, long whole) {
        return whole == 0 ? 0 : (double) part / whole;
    }

    String progressLine() {
        double s = Math.max(seconds(), 1e-9);
        return String.format("[%5.0fs] cases %d (%.1f/s), transactions %d (%.1f/s), blocked %.1f%% of statements, invalid %.1f%%, "
                        + "findings: %d bug candidates, %d documented, %d flaky",
                seconds(), cases, cases / s, transactions, transactions / s, 100 * share(blockedStatements, statements),
                100 * share(invalidStatements, statements), bugCandidates, documented, flaky);
    }
}
