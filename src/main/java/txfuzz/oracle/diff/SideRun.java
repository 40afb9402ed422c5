package txfuzz.oracle.diff;

import txfuzz.exec.Trace;
import txfuzz.model.DbState;

/**
 * One subject's run of a case: the database as the case's setup left it (read before any transaction ran,
 * on a database of its own) and the trace of the transactions.
 */
public record SideRun(DbState setup, Trace trace) {
}
