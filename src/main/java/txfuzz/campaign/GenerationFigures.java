package txfuzz.campaign;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.pattern.PatternRealisation;

/**
 * What the campaign's generators achieved (summary.json's {@code generation}): per generator the
 * cases and those in which an oracle saw an isolation anomaly, and per pattern and level how often a
 * case realised its pattern. Mutable, owned by the campaign loop; {@link #figures} is the snapshot.
 */
final class GenerationFigures {
    private long randomCases;
    private long randomAnomalous;
    private long randomBugCandidates;
    private long patternCases;
    private long patternAnomalous;
    private long patternBugCandidates;
    private final Map<String, Tally> tallies = new LinkedHashMap<>();

    private static final class Tally {
        final String pattern;
        final IsolationLevel level;
        final boolean proscribed;
        long cases;
        long realised;
        long prevented;
        long notChecked;
        long anomalous;
        long bugCandidates;
        final Map<String, Long> preventedBy = new TreeMap<>();
        final List<Long> realisedUnreported = new ArrayList<>();

        Tally(String pattern, IsolationLevel level, boolean proscribed) {
            this.pattern = pattern;
            this.level = level;
            this.proscribed = proscribed;
        }
    }

    /** A random case: {@code anomalous} when an oracle saw an isolation anomaly in it (any classification). */
    void addRandom(boolean anomalous, boolean bugCandidate) {
        randomCases++;
        randomAnomalous += anomalous ? 1 : 0;
        randomBugCandidates += bugCandidate ? 1 : 0;
    }

    /** At most this many iterations of realised-but-unreported cases are kept per pattern and level. */
    static final int UNREPORTED_KEPT = 10;

    /**
     * A pattern case and whether its run realised the pattern. A case that realised a pattern its level proscribes while no oracle saw an anomaly
     * is kept by iteration: the dirty write, dirty read and read past a snapshot are proscribed by
     * their order alone, which the isolation oracle (judging the history) does not report.
     */
    void addPattern(String pattern, IsolationLevel level, boolean proscribed, PatternRealisation r, boolean anomalous, boolean bugCandidate,
                    long iteration) {
        patternCases++;
        patternAnomalous += anomalous ? 1 : 0;
        patternBugCandidates += bugCandidate ? 1 : 0;
        Tally t = tallies.computeIfAbsent(pattern + "@" + level, k -> new Tally(pattern, level, proscribed));
        t.cases++;
        t.anomalous += anomalous ? 1 : 0;
        t.bugCandidates += bugCandidate ? 1 : 0;
        switch (r.verdict()) {
            case REALISED -> {
                t.realised++;
                if (proscribed && !anomalous && t.realisedUnreported.size() < UNREPORTED_KEPT) {
                    t.realisedUnreported.add(iteration);
                }
            }
            case NOT_REALISED -> {
                t.prevented++;
                if (r.prevention() != null) {
                    t.preventedBy.merge(r.prevention().label(), 1L, Long::sum);
                }
            }
            case NOT_CHECKABLE -> t.notChecked++;
        }
    }

    boolean any() {
        return patternCases > 0;
    }

    Summary.Generation figures(String generator) {
        List<Summary.PatternTally> rows = new ArrayList<>();
        for (Tally t : tallies.values()) {
            rows.add(new Summary.PatternTally(t.pattern, t.level.name(), t.proscribed, t.cases, t.realised, t.prevented, t.notChecked,
                    t.anomalous, t.bugCandidates, Map.copyOf(t.preventedBy), List.copyOf(t.realisedUnreported)));
        }
        return new Summary.Generation(generator, randomCases, randomAnomalous, randomBugCandidates, patternCases, patternAnomalous,
                patternBugCandidates, rows);
    }
}
