package txfuzz.campaign;

import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.dbms.ErrorClass;

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
    /** violations that break no promise of the level, only txfuzz's stricter expectation: counted, not filed */
    long notPromised;
    long flaky;
    long instrumentationEffects;
    /** Instrumented cases whose plain twin was run and compared, those that disagreed, and twins that did not line up. */
    long selfChecks;
    long selfCheckDisagreements;
    long selfChecksNotComparable;
    final java.util.List<String> firstSelfCheckDisagreements = new java.util.ArrayList<>();
    /** Unique findings (signature groups) and findings filed as duplicates of one. */
    long uniqueFindings;
    long uniqueBugCandidates;
    long duplicates;
    /** Findings reduced, and reductions skipped because an earlier reduced finding covered the case. */
    long reductions;
    long reductionsSkipped;
    long reducedStatementsBefore;
    long reducedStatementsAfter;
    long reductionRuns;
    long reductionsExhausted;
    double reductionSeconds;
    final java.util.List<Double> reductionRatios = new java.util.ArrayList<>();
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

    void addReduction(txfuzz.reduce.Reduction r) {
        reductionRuns += r.runs();
        reductionsExhausted += r.exhausted() ? 1 : 0;
        reductionSeconds += r.seconds();
        if (r.changed()) { // only a case that shrank counts as reduced (an interrupted or fruitless reduction keeps the case as found)
            reductions++;
            reducedStatementsBefore += r.statementsBefore();
            reducedStatementsAfter += r.statementsAfter();
            reductionRatios.add(r.ratio());
        }
    }

    /** Median of statementsAfter / statementsBefore over the reductions; null when none ran. */
    Double medianRatio() {
        if (reductionRatios.isEmpty()) {
            return null;
        }
        java.util.List<Double> sorted = new java.util.ArrayList<>(reductionRatios);
        java.util.Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    double share(long part, long whole) {
        return whole == 0 ? 0 : (double) part / whole;
    }

    String progressLine() {
        double s = Math.max(seconds(), 1e-9);
        return String.format(java.util.Locale.ROOT, "[%5.0fs] %s (%.1f/s), %s (%.1f/s), blocked %.1f%% of statements, invalid %.1f%%; %s, %d reduced",
                seconds(), Plural.of(cases, "case"), cases / s, Plural.of(transactions, "transaction"), transactions / s,
                100 * share(blockedStatements, statements), 100 * share(invalidStatements, statements),
                Plural.findings(bugCandidates, documented, flaky, instrumentationEffects, uniqueFindings, uniqueBugCandidates, duplicates)
                        + Plural.notPromised(notPromised), reductions)
                + (selfChecks == 0 ? "" : String.format("; self-check %d of %d instrumented cases differ without tracking",
                        selfCheckDisagreements, selfChecks));
    }
}
