package txfuzz.campaign;

import java.util.List;
import txfuzz.report.FindingRecord;

/** summary.json: a run's figures and its findings. Later work keeps this shape and adds fields. */
public record Summary(String dbms, String version, long seed, List<String> isolation, List<String> oracles, long cases,
                      long invalidCases, long transactions, long statements, double seconds, double casesPerSecond,
                      double transactionsPerSecond, double blockedShare, double invalidStatementShare, long stalls,
                      long bugCandidates, long documented, long flaky, List<FindingRecord> findings) {
}
