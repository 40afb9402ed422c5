package txfuzz.exec;

import txfuzz.model.StmtRef;

/**
 * @param status  how the transaction ended
 * @param cause   the statement whose completion ended it (its COMMIT/ROLLBACK, its autocommit
 *                statement, or the statement whose error aborted it)
 * @param reason  human-readable reason, e.g. "deadlock victim at T2.2"
 */
public record TxnOutcome(TxnStatus status, StmtRef cause, String reason) {
}
