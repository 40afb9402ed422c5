package txfuzz.campaign;

import java.util.List;
import txfuzz.report.FindingRecord;

/**
 * summary.json: a run's figures and its findings. Later work keeps this shape and adds fields.
 *
 * @param meta                which txfuzz ran, how it was invoked, on which build of the engine, and summary.json's format version
 * @param uniqueFindings      signature groups (see {@link txfuzz.report.FindingIndex}): findings worth a report each
 * @param uniqueBugCandidates those of them that are bug candidates
 * @param duplicates          findings filed as duplicates of an earlier one
 * @param reduction           what reducing the findings cost and achieved
 * @param signatures          the unique findings, oldest first
 * @param selfCheck           the instrumentation self-check; null where the cases carry no row tracking
 * @param oracleFigures       per oracle that keeps any, what it did (e.g. equiv: runs compared, not applicable, decycling
 *                            gave up); counts include confirmation and reduction runs
 * @param generation          what the generators achieved: anomalous cases per generator, patterns realised
 * @param interrupted         the run was cut short (SIGINT, SIGTERM) before its --tests or --time limit: its figures are partial
 * @param signal              the signal that cut it short (SIGINT, SIGTERM); null when it was not, or when not known
 * @param endedBy             the limit that ended the run: {@code tests}, {@code time} or {@code max-bugs} (--max-bugs unique bug
 *                            candidates were found); null while it runs and when it was interrupted
 * @param known               with {@code run --known}: this run's unique findings whose signature was known, counted apart
 *                            from the new ones; absent without --known
 * @param notPromised         violations that break no promise of their level, only txfuzz's own stricter expectation
 *                            (write-specific serializability where the level's standard definition permits the anomaly):
 *                            counted here, not filed as findings
 */
public record Summary(RunMeta meta, String dbms, String version, long seed, List<String> isolation, List<String> oracles, long cases,
                      long invalidCases, long transactions, long statements, double seconds, double casesPerSecond,
                      double transactionsPerSecond, double blockedShare, double invalidStatementShare, long stalls,
                      long bugCandidates, long documented, long flaky, List<FindingRecord> findings,
                      long uniqueFindings, long uniqueBugCandidates, long duplicates, Reduction reduction, List<Group> signatures,
                      SelfCheck selfCheck, java.util.Map<String, java.util.Map<String, Long>> oracleFigures, Generation generation,
                      boolean interrupted, String signal, String endedBy,
                      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) Known known,
                      long notPromised) {
    /** The limit --max-bugs sets, as {@link #endedBy} names it. */
    public static final String MAX_BUGS = "max-bugs";

    /** A summary of a run without --known. */
    public Summary(RunMeta meta, String dbms, String version, long seed, List<String> isolation, List<String> oracles, long cases,
                   long invalidCases, long transactions, long statements, double seconds, double casesPerSecond,
                   double transactionsPerSecond, double blockedShare, double invalidStatementShare, long stalls,
                   long bugCandidates, long documented, long flaky, List<FindingRecord> findings,
                   long uniqueFindings, long uniqueBugCandidates, long duplicates, Reduction reduction, List<Group> signatures,
                   SelfCheck selfCheck, java.util.Map<String, java.util.Map<String, Long>> oracleFigures, Generation generation,
                   boolean interrupted, String signal, String endedBy) {
        this(meta, dbms, version, seed, isolation, oracles, cases, invalidCases, transactions, statements, seconds, casesPerSecond,
                transactionsPerSecond, blockedShare, invalidStatementShare, stalls, bugCandidates, documented, flaky, findings, uniqueFindings,
                uniqueBugCandidates, duplicates, reduction, signatures, selfCheck, oracleFigures, generation, interrupted, signal, endedBy, null, 0);
    }


    /**
     * The CI regression mode ({@code run --known FILE}): this run's unique findings split by whether their signature is in FILE.
     *
     * @param file               the file the known signatures came from
     * @param knownSignatures    how many signatures it lists
     * @param knownFindings      this run's unique findings whose signature it lists
     * @param newFindings        this run's unique findings whose signature it does not list
     * @param newBugCandidates   of those, the bug candidates: the exit code is 1 when there is any, else 0
     * @param newBugCandidateSignatures their signature ids
     */
    public record Known(String file, int knownSignatures, long knownFindings, long newFindings, long newBugCandidates,
                        List<String> newBugCandidateSignatures) {
    }

    /** A summary that names no limit (written while the run goes on). */
    public Summary(RunMeta meta, String dbms, String version, long seed, List<String> isolation, List<String> oracles, long cases,
                   long invalidCases, long transactions, long statements, double seconds, double casesPerSecond,
                   double transactionsPerSecond, double blockedShare, double invalidStatementShare, long stalls,
                   long bugCandidates, long documented, long flaky, List<FindingRecord> findings,
                   long uniqueFindings, long uniqueBugCandidates, long duplicates, Reduction reduction, List<Group> signatures,
                   SelfCheck selfCheck, java.util.Map<String, java.util.Map<String, Long>> oracleFigures, Generation generation,
                   boolean interrupted, String signal) {
        this(meta, dbms, version, seed, isolation, oracles, cases, invalidCases, transactions, statements, seconds, casesPerSecond,
                transactionsPerSecond, blockedShare, invalidStatementShare, stalls, bugCandidates, documented, flaky, findings, uniqueFindings,
                uniqueBugCandidates, duplicates, reduction, signatures, selfCheck, oracleFigures, generation, interrupted, signal, null);
    }

    /** Whether the run found what sets exit code 1: with --known a new unique bug candidate, else any bug candidate. */
    public boolean foundNew() {
        return known != null ? known.newBugCandidates() > 0 : bugCandidates > 0;
    }

    /** Whether the run stopped because --max-bugs unique bug candidates were found. */
    public boolean stoppedAtMaxBugs() {
        return MAX_BUGS.equals(endedBy);
    }

    /** The findings in the words of the progress lines (see {@link Plural#findings}). */
    public String findingsText() {
        return Plural.findings(bugCandidates, documented, flaky, selfCheck == null ? 0 : selfCheck.instrumentationEffects(), uniqueFindings,
                uniqueBugCandidates, duplicates) + Plural.notPromised(notPromised);
    }

    /**
     * What the generators achieved. An anomalous case is one in which an oracle reported an isolation
     * anomaly the level proscribes, whatever its classification (bug candidate or documented).
     *
     * @param generator  random, pattern or mixed
     * @param patterns   per pattern and level: cases, how many realised the pattern (every step in the
     *                   pattern's order without waiting, each transaction ending as the pattern says,
     *                   each read and write on the version the pattern names), how many the engine
     *                   prevented (and how), how many could not be checked (no row tracking)
     */
    public record Generation(String generator, long randomCases, long randomAnomalous, long randomBugCandidates, long patternCases,
                             long patternAnomalous, long patternBugCandidates, List<PatternTally> patterns) {
        /** Pattern cases that realised their pattern, over every pattern and level. */
        public long totalRealised() {
            return patterns.stream().mapToLong(PatternTally::realised).sum();
        }

        /** Pattern cases the engine prevented, over every pattern and level. */
        public long totalPrevented() {
            return patterns.stream().mapToLong(PatternTally::prevented).sum();
        }

        /** Realised-but-unreported cases kept, over every pattern and level. */
        public long totalRealisedUnreported() {
            return patterns.stream().mapToLong(t -> t.realisedUnreported().size()).sum();
        }
    }

    /**
     * One pattern at one level; {@code proscribed}: the level proscribes it (else it was run as a
     * control). {@code realisedUnreported}: iterations (at most 10) of cases that realised it although
     * the level proscribes it and no oracle reported an anomaly — for patterns proscribed by their
     * order alone (dirty write, dirty read, a read past the snapshot), which the isolation oracle does
     * not judge; replay them by hand.
     */
    public record PatternTally(String pattern, String level, boolean proscribed, long cases, long realised, long prevented, long notChecked,
                               long anomalous, long bugCandidates, java.util.Map<String, Long> preventedBy, List<Long> realisedUnreported) {
    }

    /**
     * The instrumentation self-check (docs/findings.md): instrumented cases whose plain twin ran in the
     * same order and was compared with them.
     *
     * @param every          besides every case with a violation, every this-many-th case is checked
     * @param checked        cases compared
     * @param disagreements  cases whose plain twin behaved differently (target: 0)
     * @param rate           disagreements / checked
     * @param notComparable  twins that did not line up statement for statement (nothing compared)
     * @param instrumentationEffects violations reclassified because their case disagreed
     * @param firstDisagreements the first few disagreements: the case's iteration and what differed
     */
    public record SelfCheck(int every, long checked, long disagreements, double rate, long notComparable, long instrumentationEffects,
                            List<String> firstDisagreements) {
    }

    /**
     * Reduction totals.
     *
     * @param budgetSeconds      the time one reduction may take (0: off)
     * @param reduced            findings whose case was reduced
     * @param skippedDuplicates  findings not reduced because an earlier reduced finding covers them
     * @param statementsBefore   data statements of the reduced findings' cases as found, summed
     * @param statementsAfter    data statements after reduction, summed
     * @param medianRatio        median of after/before over the reduced findings (null when none)
     * @param seconds            time spent reducing
     * @param runs               candidate runs made while reducing
     * @param exhausted          reductions stopped by the budget before a fixed point
     */
    public record Reduction(double budgetSeconds, long reduced, long skippedDuplicates, long statementsBefore, long statementsAfter,
                            Double medianRatio, double seconds, long runs, long exhausted) {
    }

    /**
     * One unique finding.
     *
     * @param signature    the signature id
     * @param text         its readable form
     * @param finding      the representative finding's id (its folder under findings/)
     * @param duplicates   how many later findings share the signature
     * @param duplicateIds their ids, oldest first
     */
    public record Group(String signature, String text, String classification, String finding, String description, int duplicates,
                        List<String> duplicateIds) {
    }
}
