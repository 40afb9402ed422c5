package txfuzz.history;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;

/**
 * One transaction of a history.
 *
 * @param id      unique, {@code >= 1} ({@link History#INITIAL}, 0, is the loader of the initial rows);
 *                the id the instrumentation appends to wLists
 * @param session the session (connection) that ran it
 * @param seq     its position in that session: transactions of a session ran one after another in
 *                increasing {@code seq} (gaps allowed), which gives the session-order (so) edges
 * @param outcome committed, aborted or unknown
 * @param sql     the statements as run, so findings can quote them ({@code Op.stmt()} indexes it);
 *                may be empty
 * @param ops     what its statements did to rows, in execution order
 */
public record Transaction(long id, int session, int seq, Outcome outcome,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> sql, List<Op> ops) {
    public Transaction {
        checkId(id);
        if (session < 0 || seq < 0) {
            throw new IllegalArgumentException("T" + id + ": session and seq must be >= 0");
        }
        Objects.requireNonNull(outcome, "outcome is missing");
        sql = sql == null ? List.of() : List.copyOf(sql);
        ops = ops == null ? List.of() : List.copyOf(ops);
        for (Op op : ops) {
            if (op == null) {
                throw new IllegalArgumentException("T" + id + ": null op");
            }
            checkStatement(id, op.stmt(), sql.size());
            if (op instanceof Write w && w.wList().last() != id) {
                throw notItsWriter(id, w.wList().toString(), w.row());
            }
        }
    }

    /*
     * What a transaction must be, also for the compact reader, which checks its columns without making a Transaction:
     * one rule and one message for both.
     */

    static void checkId(long id) {
        if (id < 1) {
            throw new IllegalArgumentException("transaction ids are >= 1 (0 is the initial state), not " + id);
        }
    }

    /** An op's statement must be one of the transaction's {@code statements} (when it has any). */
    static void checkStatement(long id, int stmt, int statements) {
        if (statements > 0 && stmt >= statements) {
            throw new IllegalArgumentException("T" + id + ": an op names statement " + stmt + " but the transaction has " + statements
                    + " statements");
        }
    }

    /** A write's wlist that does not end with its writer {@code id}. */
    static IllegalArgumentException notItsWriter(long id, String wList, String row) {
        return new IllegalArgumentException("T" + id + ": a write's wlist must end with its writer T" + id + ", not " + wList + " (row " + row + ")");
    }

    @JsonCreator
    static Transaction json(@JsonProperty("id") Long id, @JsonProperty("session") Integer session, @JsonProperty("seq") Integer seq,
                            @JsonProperty("outcome") Outcome outcome, @JsonProperty("sql") List<String> sql, @JsonProperty("ops") List<Op> ops) {
        if (id == null) {
            throw new IllegalArgumentException("id is missing");
        }
        if (session == null || seq == null) {
            throw new IllegalArgumentException("T" + id + ": " + (session == null ? "session" : "seq") + " is missing");
        }
        return new Transaction(id, session, seq, outcome, sql, ops);
    }

    public boolean committed() {
        return outcome == Outcome.COMMITTED;
    }

    /** The SQL of statement {@code stmt}, or null when the history does not carry it. */
    public String sqlOf(int stmt) {
        return stmt >= 0 && stmt < sql.size() ? sql.get(stmt) : null;
    }
}
