package txfuzz.oracle.wss;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.TableWrites;

/**
 * One statement whose outcome in the run differs from its outcome in the serial replay, with what the
 * run shows around it: which transactions committed while it waited, and what they wrote to its table.
 * A report's headline and explanation are said from it, so they name this case's statement and rows
 * instead of the kind's general rule.
 *
 * @param statement     the statement, as the case names it (T2.0)
 * @param sql           its SQL
 * @param actual        what it did in the run
 * @param serial        what it did in the serial replay
 * @param before        the transactions the serial replay ran before the statement's own
 * @param blocked       whether the engine made it wait
 * @param waitedFor     transactions that ended while it waited (it was submitted before, and completed after, their last statement)
 * @param concurrentWrites writes of the transactions in {@code before} to the statement's table that had run and were
 *                      not committed when it was submitted: "T1.1 `UPDATE t0 SET c0 = …`"
 * @param writtenWhileWaiting writes of those transactions to its table issued after it was submitted and before it
 *                      completed (while it waited): they had not run when it started, so they were not "uncommitted" then
 */
record OutcomeDeviation(StmtRef statement, String sql, StmtResult actual, StmtResult serial, List<Integer> before, boolean blocked,
                        List<Integer> waitedFor, List<String> concurrentWrites, List<String> writtenWhileWaiting) {
    OutcomeDeviation {
        before = List.copyOf(before);
        waitedFor = List.copyOf(waitedFor);
        concurrentWrites = List.copyOf(concurrentWrites);
        writtenWhileWaiting = List.copyOf(writtenWhileWaiting);
    }

    OutcomeDeviation(StmtRef statement, String sql, StmtResult actual, StmtResult serial, List<Integer> before, boolean blocked,
                     List<Integer> waitedFor, List<String> concurrentWrites) {
        this(statement, sql, actual, serial, before, blocked, waitedFor, concurrentWrites, List.of());
    }

    /** The statement {@code original} of {@code c} as run ({@code trace}) and as replayed in {@code order}. */
    static OutcomeDeviation of(TestCase c, Trace trace, List<Integer> order, StmtRef original, StmtResult actual, StmtResult serial) {
        int own = original.txn();
        List<Integer> before = order.contains(own) ? order.subList(0, order.indexOf(own)) : List.of();
        ExecutedStmt e = trace.executed(original).orElse(null);
        int submittedAt = e == null ? 0 : e.completedBefore();
        int completedAt = e == null ? -1 : trace.position(original);
        List<Integer> waitedFor = new ArrayList<>();
        List<Integer> openWhenSubmitted = new ArrayList<>();
        for (int t : trace.endOrder()) {
            if (t == own || trace.outcome(t) == null || trace.outcome(t).cause() == null) {
                continue;
            }
            int end = trace.position(trace.outcome(t).cause());
            if (end >= submittedAt) {
                openWhenSubmitted.add(t);
                if (e != null && e.blocked() && end < completedAt) {
                    waitedFor.add(t);
                }
            }
        }
        String table = TableWrites.target(c.stmt(original).sql()).orElse(null);
        List<String> writes = new ArrayList<>();
        List<String> later = new ArrayList<>();
        for (int t : before) {
            if (!openWhenSubmitted.contains(t)) {
                continue;
            }
            for (StmtRef r : SerialSchedule.effective(c, trace, t)) {
                String s = c.stmt(r).sql();
                if (c.stmt(r).kind().isWrite() && table != null
                        && TableWrites.target(s).map(x -> x.equalsIgnoreCase(table)).orElse(false)) {
                    int at = trace.position(r);
                    if (at < submittedAt) {
                        writes.add(r + " `" + shortSql(s) + "`");
                    } else if (at < completedAt) {
                        later.add(r + " `" + shortSql(s) + "`");
                    }
                }
            }
        }
        return new OutcomeDeviation(original, c.stmt(original).sql(), actual, serial, before, e != null && e.blocked(), waitedFor, writes, later);
    }

    /** "T2's `UPDATE t0 SET c3 = NULL` changed 0 rows after waiting for T1, where run after T1 it changes 1". */
    String sentence() {
        String waited = blocked ? " after waiting" + (waitedFor.isEmpty() ? "" : " for " + txns(waitedFor)) : "";
        String head = "T" + statement.txn() + "'s `" + shortSql(sql) + "` ";
        if (sameRowCount()) {
            return head + "returned other rows" + waited + " than it returns " + runSerially();
        }
        return head + did(actual) + waited + ", where " + runSerially() + " it " + does(serial);
    }

    /** A query whose rows differ but not in number: "returned 2 rows, where … it returns 2 rows" would say nothing. */
    private boolean sameRowCount() {
        return !actual.failed() && !serial.failed() && actual.rows() != null && serial.rows() != null
                && actual.rows().size() == serial.rows().size();
    }

    /** Why the run differs, in terms of this statement, what it waited for and the rows that ended differently. */
    String explanation(String stateDifference) {
        StringBuilder s = new StringBuilder("Statement ").append(statement).append(" `").append(shortSql(sql)).append("` ");
        if (blocked && !waitedFor.isEmpty()) {
            s.append("was blocked until ").append(txns(waitedFor)).append(waitedFor.size() == 1 ? " ended" : " had ended");
        } else if (blocked) {
            s.append("was blocked for a while");
        } else {
            s.append("ran");
        }
        if (!concurrentWrites.isEmpty()) {
            boolean one = concurrentWrites.size() == 1;
            s.append(blocked ? "; when it started, " + (one ? "this write to its table was" : "these writes to its table were")
                    : " when " + (one ? "this write to its table was" : "these writes to its table were"))
                    .append(" not yet committed: ").append(String.join(", ", concurrentWrites));
        }
        if (!writtenWhileWaiting.isEmpty()) {
            s.append(concurrentWrites.isEmpty() ? "; " : ", and ").append(writtenWhileWaiting.size() == 1 ? "this write to its table was"
                    : "these writes to its table were").append(" issued while it waited: ").append(String.join(", ", writtenWhileWaiting));
        }
        s.append(". Then it ").append(sameRowCount() ? "returned " + rows(actual.rows().size()) : did(actual)).append(". Run serially ").append(before.isEmpty() ? "before the other transactions"
                : "after " + txns(before)).append(", it ").append(does(serial)).append(": ").append(difference()).append('.');
        if (stateDifference != null) {
            s.append(" The final state shows the difference: ").append(stateDifference).append('.');
        }
        return s.toString();
    }

    /** Which way the outcomes differ, in plain words. */
    private String difference() {
        String when = before.isEmpty() ? "when it runs first" : "once " + txns(before) + (before.size() == 1 ? " has" : " have") + " committed";
        if (actual.failed() != serial.failed()) {
            return actual.failed() ? "it failed where it succeeds " + when : "it succeeded where it fails " + when;
        }
        if (actual.rows() != null || serial.rows() != null) {
            return "it read other rows than it reads " + when;
        }
        return actual.updateCount() < serial.updateCount()
                ? "it missed rows that it changes " + when
                : "it changed rows that it leaves alone " + when;
    }

    private String runSerially() {
        return before.isEmpty() ? "run first" : "run after " + txns(before);
    }

    private static String did(StmtResult r) {
        if (r.failed()) {
            return "failed (" + r.errorClass().name().toLowerCase(Locale.ROOT).replace('_', ' ') + " error)";
        }
        if (r.rows() != null) {
            return "returned " + rows(r.rows().size());
        }
        return r.updateCount() >= 0 ? "changed " + rows(r.updateCount()) : "succeeded";
    }

    private static String does(StmtResult r) {
        if (r.failed()) {
            return "fails (" + r.errorClass().name().toLowerCase(Locale.ROOT).replace('_', ' ') + " error)";
        }
        if (r.rows() != null) {
            return "returns " + rows(r.rows().size());
        }
        return r.updateCount() >= 0 ? "changes " + rows(r.updateCount()) : "succeeds";
    }

    private static String rows(long n) {
        return n + (n == 1 ? " row" : " rows");
    }

    static String txns(List<Integer> ids) {
        List<String> names = ids.stream().map(t -> "T" + t).toList();
        return names.size() <= 1 ? String.join("", names)
                : String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.get(names.size() - 1);
    }

    /** SQL on one line, cut to a length a sentence can carry. */
    static String shortSql(String sql) {
        String one = sql.strip().replaceAll("\\s+", " ");
        return one.length() <= 80 ? one : one.substring(0, 77) + "...";
    }
}
