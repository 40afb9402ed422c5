package txfuzz.oracle.isolation;

import java.util.Arrays;
import java.util.List;
import txfuzz.history.Anomaly;
import txfuzz.oracle.ViolationKind;

/**
 * An anomaly kind as the isolation oracle reports it. The taxonomy (names, descriptions, which
 * kind refines which) is {@link Anomaly}'s; this adds the one spelling and what a report says.
 */
public record IsolationKind(Anomaly anomaly) implements ViolationKind {
    @Override
    public boolean isAnomaly() {
        return true;
    }

    public static final List<IsolationKind> ALL = Arrays.stream(Anomaly.values()).map(IsolationKind::new).toList();

    public static IsolationKind of(Anomaly a) {
        return ALL.get(a.ordinal());
    }

    @Override
    public String oracle() {
        return IsolationOracle.NAME;
    }

    /** The literature's name as one word: "lost update" → "lost-update", "G2-item" as it is. */
    @Override
    public String label() {
        return anomaly.label().replace(' ', '-');
    }

    @Override
    public String headline() {
        return IsolationOracle.NAME + " " + label();
    }

    @Override
    public String rule(Setting where) {
        return "txfuzz recorded which version of which row every statement read and wrote (two hidden columns per table: a row "
                + "identity and the list of transactions that wrote the row; IsoRel, ISSTA 2025) and built the dependency graph of "
                + "the transactions. " + where.level().sql() + " proscribes this kind of cycle (Adya's generalised isolation levels).";
    }

    @Override
    public String undocumented(Setting where) {
        return where.dbms() + " documents no exception for this anomaly at " + where.level().sql()
                + " (txfuzz's profile of the engine, docs/isolation.md). This is a bug candidate.";
    }

    @Override
    public String toString() {
        return label();
    }
}
