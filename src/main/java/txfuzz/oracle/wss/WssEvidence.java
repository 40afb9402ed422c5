package txfuzz.oracle.wss;

import java.util.List;
import java.util.Optional;
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
 */
public record WssEvidence(WssKind kind, StmtRef statement, StmtResult actual, List<String> sql, SerialOrders orders, String direction)
        implements Evidence {
    public WssEvidence {
        sql = List.copyOf(sql);
    }

    public WssEvidence(WssKind kind, StmtRef statement, StmtResult actual, List<String> sql, SerialOrders orders) {
        this(kind, statement, actual, sql, orders, null);
    }

    /** The same, checked against {@code o}. */
    WssEvidence checkedAgainst(SerialOrders o) {
        return new WssEvidence(kind, statement, actual, sql, o, direction);
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

    /** Says which orders were tried and which one matches, instead of the kind's general line. */
    @Override
    public Optional<String> headline() {
        return orders == null ? Optional.empty() : Optional.of(orders.headline(kind));
    }
}
