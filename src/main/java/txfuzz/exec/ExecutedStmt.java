package txfuzz.exec;

import txfuzz.model.StmtRef;

/**
 * One statement in the actual schedule.
 *
 * @param blocked         the engine made it wait for a lock before it completed
 * @param submitSeq       position in which it was submitted (0-based, across all sessions)
 * @param completedBefore how many statements had completed when it was submitted: the statements
 *                        at schedule positions below this finished before it began
 * @param resumedWith     statements that resumed in the same sweep share this number (-1: resumed
 *                        alone, or never blocked). Their order in the schedule is the order their
 *                        clients saw them finish, which need not be the engine's order.
 */
public record ExecutedStmt(StmtRef ref, StmtResult result, boolean blocked, int submitSeq, int completedBefore, int resumedWith) {
}
