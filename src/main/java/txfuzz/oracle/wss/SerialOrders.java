package txfuzz.oracle.wss;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import txfuzz.dbms.LevelSemantics;
import txfuzz.model.IsolationLevel;

/**
 * The serial orders a wss verdict was checked against, and what the level promises about order, so
 * that a report says what was checked instead of claiming more ("no serial order gives it" is false
 * when a serial order other than the commit order does).
 *
 * <p>When no commit order gives the final state, the other serial orders are searched for one that does
 * ({@link StateOrderSearch}): up to six more serial replays, which only a report's headline needs. The
 * search runs when its outcome is first asked for — when a finding is written — not on every judged run
 * (most are never filed, and a reduction judges hundreds); it runs at most once.
 */
public final class SerialOrders {
    /** What the search for a serial order that gives the final state found. */
    record Outcome(List<Integer> stateOrder, int ordersTried, boolean everyOrder) {
        Outcome {
            stateOrder = stateOrder == null ? null : List.copyOf(stateOrder);
        }
    }

    private final List<List<Integer>> commitOrders;
    private final String promise;
    private Supplier<Outcome> search; // null once run
    private Outcome outcome;

    /**
     * @param commitOrders the commit orders replayed: the recorded one first, then those the run cannot rule out
     * @param search       the search of the other orders, run when first needed
     * @param promise      what the engine promises about order at the level, e.g. "H2 promises serializability in
     *                     commit order at SERIALIZABLE"
     */
    SerialOrders(List<List<Integer>> commitOrders, Supplier<Outcome> search, String promise) {
        this(commitOrders, search, null, promise);
    }

    /** Orders already known: nothing to search. */
    SerialOrders(List<List<Integer>> commitOrders, Outcome known, String promise) {
        this(commitOrders, null, known, promise);
    }

    private SerialOrders(List<List<Integer>> commitOrders, Supplier<Outcome> search, Outcome known, String promise) {
        this.commitOrders = commitOrders.stream().map(List::copyOf).toList();
        this.search = search;
        this.outcome = known;
        this.promise = promise;
    }

    private synchronized Outcome outcome() {
        if (search != null) {
            outcome = search.get();
            search = null; // the case, trace and executor it holds are not needed any more
        }
        return outcome;
    }

    /** The commit orders replayed: the recorded one first, then those the run cannot rule out. */
    public List<List<Integer>> commitOrders() {
        return commitOrders;
    }

    /**
     * A serial order of whole transactions whose replay gives the actual final state, if one of those tried does;
     * null when none does or it was not searched (not a state violation).
     */
    public List<Integer> stateOrder() {
        return outcome().stateOrder();
    }

    /** Serial orders of whole transactions tried for the final state (the commit orders included). */
    public int ordersTried() {
        return outcome().ordersTried();
    }

    /** Whether those are all the orders of the committed transactions. */
    public boolean everyOrder() {
        return outcome().everyOrder();
    }

    /** What the engine promises about order at the level. */
    public String promise() {
        return promise;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SerialOrders other && commitOrders.equals(other.commitOrders) && promise.equals(other.promise)
                && outcome().equals(other.outcome());
    }

    @Override
    public int hashCode() {
        return Objects.hash(commitOrders, promise, outcome());
    }

    /** Does not run a pending search (a verdict is printed in tests and logs): says it is pending instead. */
    @Override
    public synchronized String toString() {
        String found = outcome == null ? "stateOrder=(not searched yet)"
                : "stateOrder=" + outcome.stateOrder() + ", ordersTried=" + outcome.ordersTried() + ", everyOrder=" + outcome.everyOrder();
        return "SerialOrders[commitOrders=" + commitOrders + ", " + found + ", promise=" + promise + "]";
    }

    /** What the engine promises about order at {@code level}, as txfuzz's profile of it says. */
    static String promise(String dbms, IsolationLevel level, LevelSemantics s) {
        String at = " at " + level.sql();
        if (s.serializableReads()) {
            return dbms + " promises serializability in commit order" + at;
        }
        if (level == IsolationLevel.SERIALIZABLE) {
            return s.documentedAnomalies().isEmpty() && s.deviations().isEmpty()
                    ? dbms + " promises serializability" + at + ", not that the serial order is the commit order;"
                    + " WriteCheck still expects committed writes as in commit order"
                    : dbms + " documents weaker behaviour" + at + " than serializability";
        }
        return level.sql() + " does not promise serializability; WriteCheck still expects committed writes as in commit order";
    }

    /** A serial order of whole transactions gives the final state. */
    public boolean stateMatched() {
        return stateOrder() != null;
    }

    /** The matching order is one the engine may have committed in (not just some serial order). */
    public boolean stateMatchedInCommitOrder() {
        return stateOrder() != null && commitOrders.contains(stateOrder());
    }

    /** "T1 → T2". */
    public static String describe(List<Integer> order) {
        return order.isEmpty() ? "(none)" : String.join(" → ", order.stream().map(id -> "T" + id).toList());
    }

    /**
     * The commit order the violations were compared with: one that gives the final state if the engine may have
     * committed in it (then the state is no violation, and what is left is compared with that order), else the recorded one.
     */
    public List<Integer> compared() {
        return stateMatchedInCommitOrder() ? stateOrder() : commitOrders.get(0);
    }

    /** "in commit order T1 → T2" or "in commit order T1 → T2 (or T2 → T1, which the run cannot rule out)". */
    String inCommitOrder() {
        if (!compared().equals(commitOrders.get(0))) {
            return "in commit order " + describe(compared()) + " (the run recorded " + describe(commitOrders.get(0))
                    + ", but cannot rule out " + describe(compared()) + ", whose replay gives the final state)";
        }
        String s = "in commit order " + describe(commitOrders.get(0));
        if (commitOrders.size() > 1) {
            s += " (or " + String.join(", ", commitOrders.subList(1, commitOrders.size()).stream().map(SerialOrders::describe).toList())
                    + ", which the run cannot rule out)";
        }
        return s;
    }

    /** What the serial replays of whole transactions showed about the final state. */
    String stateOutcome() {
        if (stateMatchedInCommitOrder()) {
            return "the replay in commit order " + describe(stateOrder()) + " gives this state, but other outcomes differ there";
        }
        if (stateMatched()) {
            return "only serial order " + describe(stateOrder()) + ", not a commit order, gives it: committed writes took effect"
                    + " out of the order their transactions committed in";
        }
        return everyOrder() ? "no serial order of the transactions gives it (all " + ordersTried() + " tried)"
                : "none of the " + ordersTried() + " serial orders tried gives it (not every order was tried)";
    }

    /**
     * What a violation of {@code kind} was checked against and what the level promises, for the report's rule
     * section: "Compared with the serial replay in commit order T1 → T2: no serial order of the transactions gives
     * the final state (all 2 tried). READ COMMITTED does not promise serializability; WriteCheck still expects …".
     */
    String checked(WssKind kind) {
        String what = switch (kind) {
            case TX_WSS -> "The final state was compared with the serial replay " + inCommitOrder() + ": " + stateOutcome() + ".";
            case STMT_WSS -> "The final state was compared with the statement-by-statement serial replay " + inCommitOrder()
                    + "; as whole transactions, " + stateOutcome() + ".";
            case WRITE_OUTCOME -> "Each write's outcome was compared with the serial replay " + inCommitOrder() + ".";
            case READ_RESULT -> "Each query's rows were compared with the serial replay " + inCommitOrder() + ".";
            default -> "";
        };
        return (what + " " + Character.toUpperCase(promise.charAt(0)) + promise.substring(1) + ".").strip();
    }
}
