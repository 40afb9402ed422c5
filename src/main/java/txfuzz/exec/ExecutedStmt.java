package txfuzz.exec;

import java.util.List;
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
 * @param waitedFor       the transactions the engine last named as holding what it waited for (empty: it never waited, or
 *                        the engine named none of ours): in a sweep, it ended after such a transaction's ending statement
 */
public record ExecutedStmt(StmtRef ref, StmtResult result, boolean blocked, int submitSeq, int completedBefore, int resumedWith,
                           List<Integer> waitedFor) {
    public ExecutedStmt {
        waitedFor = List.copyOf(waitedFor);
    }

    /** A statement whose waits, if any, named none of the case's transactions. */
    public ExecutedStmt(StmtRef ref, StmtResult result, boolean blocked, int submitSeq, int completedBefore, int resumedWith) {
        this(ref, result, blocked, submitSeq, completedBefore, resumedWith, List.of());
    }
}
