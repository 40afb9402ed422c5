package txfuzz.oracle.wss;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import txfuzz.exec.StmtResult;
import txfuzz.model.StmtRef;
import txfuzz.oracle.Evidence;
import txfuzz.oracle.ViolationIdentity;

/**
 * What a wss violation rests on.
 *
 * @param kind      the violation's kind (its headline depends on it)
 * @param statement the statement behind a write-outcome, read-result, replay-hang or first-committer-wins; else null
 * @param actual    its actual result (write-outcome: whether a documented deviation explains it depends on whether
 *                  the simulation reproduces that count); else null
 * @param sql       the statements that deviated: that one, or for a final state the committed writes to the tables that differ
 * @param orders    the serial orders it was checked against; null for kinds that are not about order
 * @param direction which way the run differs from the serial replay ({@code affected fewer rows than serial}, {@code t1: rows
 *                  only actual}); null: the kind says it all
 * @param deviation the statement whose outcome differs from the serial replay's, with what the run shows around it (for a final
 *                  state: the first write whose outcome differs in the same replay); null when there is none
 * @param stateDifference for a final state, the first row that ended differently, in words; else null
 */
public record WssEvidence(WssKind kind, StmtRef statement, StmtResult actual, List<String> sql, SerialOrders orders, String direction,
                          OutcomeDeviation deviation, String stateDifference) implements Evidence {
    public WssEvidence {
        sql = List.copyOf(sql);
    }

    public WssEvidence(WssKind kind, StmtRef statement, StmtResult actual, List<String> sql, SerialOrders orders, String direction) {
        this(kind, statement, actual, sql, orders, direction, null, null);
    }

    public WssEvidence(WssKind kind, StmtRef statement, StmtResult actual, List<String> sql, SerialOrders orders) {
        this(kind, statement, actual, sql, orders, null);
    }

    /** The same, checked against {@code o}. */
    WssEvidence checkedAgainst(SerialOrders o) {
        return new WssEvidence(kind, statement, actual, sql, o, direction, deviation, stateDifference);
    }

    /** The same, explained by {@code d}. */
    WssEvidence explainedBy(OutcomeDeviation d) {
        return new WssEvidence(kind, statement, actual, sql, orders, direction, d, stateDifference);
    }

    /** The statement it is about (none for a final state) and which way it differs. */
    @Override
    public Optional<ViolationIdentity> identity() {
        return Optional.of(ViolationIdentity.of(statement, direction == null ? kind.label() : direction));
    }

    @Override
    public List<String> deviatingSql() {
        return sql;
    }

    /**
     * One sentence of what the engine did wrong, naming the statement: "T2's `UPDATE t0 SET c3 = NULL` changed 0 rows after
     * waiting for T1, where run after T1 it changes 1". What was checked and what the level promises are {@link #checked()}.
     */
    @Override
    public Optional<String> headline() {
        return Optional.of(switch (kind) {
            case TX_WSS, STMT_WSS -> deviation != null && kind == WssKind.TX_WSS
                    ? deviation.sentence() + ", and the final state differs from that serial run's"
                    : "the committed writes to " + tables() + " end in a state that running "
                    + (orders == null ? "the transactions one after another in commit order" : SerialOrders.describe(orders.compared())
                    + " one after another") + " does not give";
            case WRITE_OUTCOME, READ_RESULT -> deviation != null ? deviation.sentence() : kind.headline();
            case REPLAY_HANG -> statement == null ? kind.headline()
                    : statement + " `" + OutcomeDeviation.shortSql(sql.get(0)) + "` hangs when the committed transactions run one after"
                    + " another, with no lock to wait for";
            case FIRST_COMMITTER_WINS -> kind.headline();
            case UNEXPLAINED_ERROR -> statement == null || actual == null || actual.error() == null ? kind.headline()
                    : statement + " `" + OutcomeDeviation.shortSql(sql.get(0)) + "` failed with " + AbortingErrors.describe(actual.error())
                    + " that no serial order of the committed transactions raises";
        });
    }

    /** The orders replayed and what the level promises about order: the rule's context, not the headline. */
    @Override
    public Optional<String> checked() {
        return orders == null ? Optional.empty() : Optional.of(orders.checked(kind));
    }

    @Override
    public Optional<String> explanation() {
        return deviation == null || (kind == WssKind.STMT_WSS) ? Optional.empty() : Optional.of(deviation.explanation(stateDifference));
    }

    /** "table t0", "tables t0 and t1": the tables that ended differently, from the direction. */
    private String tables() {
        Set<String> names = new LinkedHashSet<>();
        if (direction != null) {
            for (String part : direction.split("; ")) {
                int colon = part.indexOf(':');
                if (colon > 0) {
                    names.add(part.substring(0, colon));
                }
            }
        }
        if (names.isEmpty()) {
            return "the tables";
        }
        List<String> n = List.copyOf(names);
        return (n.size() == 1 ? "table " : "tables ") + (n.size() == 1 ? n.get(0)
                : String.join(", ", n.subList(0, n.size() - 1)) + " and " + n.get(n.size() - 1));
    }
}
