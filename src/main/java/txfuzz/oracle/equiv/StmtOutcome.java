package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.List;
import txfuzz.model.DbState;
import txfuzz.model.Values;

/**
 * What one statement gave, in the form the oracle compares (OSDI 2023 Alg. 1, line 8): result rows
 * as a multiset of normalised values (floating point to 12 significant digits by
 * {@link Values#normalise}), the affected-row count, or the class of the error.
 *
 * @param rows       result rows, sorted so that equality is multiset equality; null for a statement
 *                   that returns no result set
 * @param affected   affected-row count of a write, -1 when not applicable
 * @param errorClass the class of the error it raised (e.g. an {@code ErrorClass} name), null when it succeeded
 */
public record StmtOutcome(List<List<String>> rows, long affected, String errorClass) {
    public StmtOutcome {
        rows = rows == null ? null : DbState.sorted(rows);
    }

    /** A query's rows, values normalised here (raw JDBC objects or already normalised strings). */
    public static StmtOutcome rows(List<? extends List<?>> raw) {
        List<List<String>> out = new ArrayList<>();
        for (List<?> row : raw) {
            List<String> r = new ArrayList<>();
            for (Object v : row) {
                r.add(v instanceof String s ? s : Values.normalise(v));
            }
            out.add(r);
        }
        return new StmtOutcome(out, -1, null);
    }

    public static StmtOutcome affected(long n) {
        return new StmtOutcome(null, n, null);
    }

    public static StmtOutcome error(String errorClass) {
        return new StmtOutcome(null, -1, errorClass);
    }

    @Override
    public String toString() {
        if (errorClass != null) {
            return "error " + errorClass;
        }
        if (rows != null) {
            StringBuilder sb = new StringBuilder(rows.size() + (rows.size() == 1 ? " row" : " rows"));
            for (List<String> r : rows) {
                sb.append(' ').append(DbState.formatRow(r));
            }
            return sb.toString();
        }
        return affected >= 0 ? "affected " + affected : "ok";
    }
}
