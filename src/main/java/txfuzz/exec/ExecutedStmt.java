package txfuzz.exec;

import txfuzz.model.StmtRef;

/**
 * One statement in the actual schedule.
 *
 * @param submitSeq position in which it was submitted (0-based, across all sessions)
 * @param blocked   the engine made it wait for a lock before it completed
 */
public record ExecutedStmt(StmtRef ref, StmtResult result, boolean blocked, int submitSeq) {
}
