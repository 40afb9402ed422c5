package txfuzz.oracle;

import java.util.List;
import java.util.Optional;

/**
 * Typed evidence of a violation, beside its Markdown: what the oracle itself needs later (e.g. the
 * statement and result behind a write-outcome, an anomaly's transactions) and what identifies the
 * bug. Each oracle defines its own records; others see only this interface.
 */
public interface Evidence {
    /** No typed evidence. */
    Evidence NONE = new Evidence() {
        @Override
        public String toString() {
            return "none";
        }
    };

    /**
     * What identifies the bug whatever case and level showed it (e.g. the engine assertion that
     * failed in a crash: "assertion: table->n_rec_locks == 0"); empty when the case does.
     */
    default Optional<String> caseIndependentIdentity() {
        return Optional.empty();
    }

    /**
     * The shape of what went wrong, where the oracle sees one that does not depend on the case's
     * other statements: e.g. an isolation cycle's dependency types in cycle order and whether it spans
     * one table ("rw wr · one table"). Findings are signed by it, so random cases that hit one bug
     * through differently shaped SQL share one report; empty when the oracle has no shape.
     */
    default Optional<String> shape() {
        return Optional.empty();
    }

    /**
     * The SQL of the statements that deviated (the write whose outcome differed, the query that
     * returned other rows, the writes to a table that ended differently): their statement kinds sign
     * the finding. Empty when the oracle singles out no statement.
     */
    default List<String> deviatingSql() {
        return List.of();
    }

    /**
     * What singles this violation out among its kind's in one case: the statements it is about and
     * which way it differs (see {@link ViolationIdentity}). A reduced case keeps the violation only
     * while it shows one of the same kind with this identity. Empty: any violation of the kind is this
     * one; by default the evidence's {@link #shape()}, when it has one, is its identity.
     */
    default Optional<ViolationIdentity> identity() {
        return shape().map(s -> new ViolationIdentity(List.of(), s));
    }

    /**
     * The transactions the violation is about (an anomaly's cycle; by default those of its {@link #identity()}'s
     * statements); empty when it names none in particular. The campaign's self-check asks it to tell whether an
     * untracked twin differed where the violation is.
     */
    default List<Integer> transactions() {
        return identity().map(i -> i.statements().stream().map(txfuzz.model.StmtRef::txn).distinct().toList()).orElse(List.of());
    }

    /**
     * This violation's headline, where the evidence can say more than its kind's general one: one
     * sentence, in plain words, of what the engine did wrong, naming the statement where there is one
     * ("T2's `UPDATE t0 SET c3 = NULL` changed 0 rows after waiting for T1, where run after T1 it
     * changes 1"); empty: the kind's headline. What was checked and what the level promises belong in
     * {@link #checked()}, not here.
     */
    default Optional<String> headline() {
        return Optional.empty();
    }

    /**
     * What this violation was checked against and what the level promises (e.g. which serial orders were
     * replayed, and whether another one gives the state): the report prints it under the rule it breaks.
     * Empty: the kind's rule says it all.
     */
    default Optional<String> checked() {
        return Optional.empty();
    }

    /**
     * Why this violation happened, said from its own evidence (which statement waited for which
     * transaction, which rows ended differently): the report's explanation. Empty when the oracle can say
     * no more than its kind's rule.
     */
    default Optional<String> explanation() {
        return Optional.empty();
    }
}
