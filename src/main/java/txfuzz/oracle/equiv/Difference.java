package txfuzz.oracle.equiv;

import java.util.List;
import java.util.Objects;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;

/**
 * One way the non-transactional replay disagreed with the transactional run (OSDI 2023 Alg. 1,
 * lines 8 and 13): the value the oracle turns into a violation.
 *
 * @param aspect            what differs
 * @param stmt              the statement, null for {@link Aspect#STATE}
 * @param table             the table, for {@link Aspect#STATE}; null otherwise
 * @param transactional     what the transactional run gave (a summary)
 * @param sequential        what the replay gave
 * @param onlyTransactional rows only the transactional run had (ROWS, STATE)
 * @param onlySequential    rows only the replay had (ROWS, STATE)
 */
public record Difference(Aspect aspect, StmtRef stmt, String table, String transactional, String sequential,
                         List<List<String>> onlyTransactional, List<List<String>> onlySequential) {

    public enum Aspect {
        /** one run has an outcome for the statement, the other none */
        MISSING,
        /** one run raised an error and the other did not, or errors of different classes */
        ERROR,
        /** result rows differ as multisets */
        ROWS,
        /** affected-row counts differ */
        AFFECTED,
        /** final contents of a table differ */
        STATE
    }

    public Difference {
        Objects.requireNonNull(aspect);
        onlyTransactional = onlyTransactional == null ? List.of() : List.copyOf(onlyTransactional);
        onlySequential = onlySequential == null ? List.of() : List.copyOf(onlySequential);
    }

    /** "T1.S3: ROWS: transactional 1 row (2, 43) vs. sequential 2 rows …". */
    public String describe() {
        StringBuilder sb = new StringBuilder(stmt != null ? StmtExec.label(stmt) : "table " + table).append(": ")
                .append(aspect.name().toLowerCase(java.util.Locale.ROOT)).append(": transactional ").append(transactional)
                .append(" vs. non-transactional ").append(sequential);
        if (!onlyTransactional.isEmpty()) {
            sb.append("; only transactional:");
            onlyTransactional.forEach(r -> sb.append(' ').append(DbState.formatRow(r)));
        }
        if (!onlySequential.isEmpty()) {
            sb.append("; only non-transactional:");
            onlySequential.forEach(r -> sb.append(' ').append(DbState.formatRow(r)));
        }
        return sb.toString();
    }
}
