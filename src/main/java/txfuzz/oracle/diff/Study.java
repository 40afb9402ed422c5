package txfuzz.oracle.diff;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * DT2's compatibility study (§6), generated: for one pair of subjects, how many cases were compared, how many
 * agreed, how many could not be compared (and why), and the distinct scenarios — divergence kind × cause ×
 * consequence — each counted once per occurrence and shown by its smallest example.
 */
public record Study(String pair, long compared, long agreeing, Map<String, Long> notComparable, List<Scenario> scenarios) {
    public Study {
        notComparable = java.util.Collections.unmodifiableMap(new TreeMap<>(notComparable));
        scenarios = List.copyOf(scenarios);
    }

    public long notComparableTotal() {
        return notComparable.values().stream().mapToLong(Long::longValue).sum();
    }

    /** This study and {@code other} (the same pair, another worker's cases) as one: counts summed, each scenario shown by the smaller example. */
    public Study plus(Study other) {
        if (!pair.equals(other.pair)) {
            throw new IllegalArgumentException("studies of two pairs: " + pair + ", " + other.pair);
        }
        Map<String, Long> reasons = new TreeMap<>(notComparable);
        other.notComparable.forEach((k, v) -> reasons.merge(k, v, Long::sum));
        Map<String, Scenario> byKey = new LinkedHashMap<>();
        for (Scenario sc : scenarios) {
            byKey.put(sc.key(), sc);
        }
        for (Scenario sc : other.scenarios) {
            byKey.merge(sc.key(), sc, Scenario::plus);
        }
        List<Scenario> list = new ArrayList<>(byKey.values());
        list.sort(ORDER);
        return new Study(pair, compared + other.compared, agreeing + other.agreeing, reasons, list);
    }

    private static final Comparator<Scenario> ORDER = Comparator.comparing(Scenario::kind).thenComparing(Scenario::cause).thenComparing(Scenario::consequence);

    /**
     * One distinct scenario: how often it was seen, its labels, and an example (the smallest case's side-by-side).
     *
     * @param exampleCase      the example's case as the primary subject ran it, to reduce; null when not kept
     * @param exampleViolation the violation it was reported as, which a reduction must keep; null when not kept
     * @param reduced          how the example was reduced ("reduced from 9 to 3 statements …"); null: shown as generated
     */
    public record Scenario(DivergenceKind kind, Cause cause, Consequence consequence, Label label, long seen, int exampleSize, String example,
                           txfuzz.model.TestCase exampleCase, txfuzz.oracle.Violation exampleViolation, String reduced) {
        public Scenario(DivergenceKind kind, Cause cause, Consequence consequence, Label label, long seen, int exampleSize, String example) {
            this(kind, cause, consequence, label, seen, exampleSize, example, null, null, null);
        }

        String key() {
            return kind + "/" + cause + "/" + consequence;
        }

        /** The same scenario seen elsewhere too: seen by both counts, shown (and labelled) by the smaller example. */
        Scenario plus(Scenario other) {
            Scenario shown = other.exampleSize < exampleSize ? other : this;
            return new Scenario(kind, cause, consequence, shown.label, seen + other.seen, shown.exampleSize, shown.example, shown.exampleCase,
                    shown.exampleViolation, shown.reduced);
        }

        /** The scenario shown by a reduced example instead. */
        Scenario withExample(int size, String shown, String how) {
            return new Scenario(kind, cause, consequence, label, seen, size, shown, null, null, how);
        }
    }

    /** This study with each scenario's example replaced where {@code reduce} gives one. */
    public Study withExamples(java.util.function.UnaryOperator<Scenario> reduce) {
        return new Study(pair, compared, agreeing, notComparable, scenarios.stream().map(reduce).toList());
    }

    /** Collects a campaign's comparisons into a {@link Study}. Not thread-safe: one per campaign thread, or synchronise. */
    public static final class Builder {
        private final String pair;
        private long compared;
        private long agreeing;
        private final Map<String, Long> notComparable = new TreeMap<>();
        private final Map<String, Scenario> scenarios = new LinkedHashMap<>();

        public Builder(String pair) {
            this.pair = pair;
        }

        public Builder agreed() {
            compared++;
            agreeing++;
            return this;
        }

        /** {@code reason} up to its first colon ("flaky", "setup differs", "the executor broke a stall on one side") groups it. */
        public Builder notComparable(String reason) {
            compared++;
            String group = reason == null ? "unknown" : reason.split(":", 2)[0].strip();
            notComparable.merge(group, 1L, Long::sum);
            return this;
        }

        public Builder diverged(Divergence d, Triaged t, Consequence consequence, int caseSize, String example) {
            return diverged(d, t, consequence, caseSize, example, null, null);
        }

        /** As above, keeping the example's case and the violation it was reported as, for its reduction. */
        public Builder diverged(Divergence d, Triaged t, Consequence consequence, int caseSize, String example, txfuzz.model.TestCase exampleCase,
                                txfuzz.oracle.Violation reported) {
            if (t.label() == Label.NOT_COMPARABLE) {
                return notComparable("identical subjects diverged");
            }
            compared++;
            String key = d.kind() + "/" + t.cause() + "/" + consequence;
            Scenario old = scenarios.get(key);
            long seen = old == null ? 1 : old.seen() + 1;
            boolean smaller = old == null || caseSize < old.exampleSize();
            scenarios.put(key, smaller ? new Scenario(d.kind(), t.cause(), consequence, t.label(), seen, caseSize, example, exampleCase, reported, null)
                    : new Scenario(d.kind(), t.cause(), consequence, old.label(), seen, old.exampleSize(), old.example(), old.exampleCase(),
                    old.exampleViolation(), null));
            return this;
        }

        public Study build() {
            List<Scenario> list = new ArrayList<>(scenarios.values());
            list.sort(ORDER);
            return new Study(pair, compared, agreeing, notComparable, list);
        }
    }
}
