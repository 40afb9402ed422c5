package txfuzz.exec;

import java.util.List;
import txfuzz.dbms.ErrorClass;

/**
 * What one statement returned: rows (normalised, in the order the engine gave them), an update
 * count, or an error. Exactly one of {@code rows}/{@code error} is set for queries and errors;
 * writes have {@code updateCount >= 0}, and a write with RETURNING has its rows too.
 */
public record StmtResult(List<List<String>> rows, long updateCount, EngineError error) {

    public static StmtResult ofRows(List<List<String>> rows) {
        return new StmtResult(List.copyOf(rows.stream().map(java.util.Collections::unmodifiableList).toList()), -1, null);
    }

    public static StmtResult ofCount(long count) {
        return new StmtResult(null, count, null);
    }

    public static StmtResult ok() {
        return new StmtResult(null, -1, null);
    }

    public static StmtResult failed(EngineError error) {
        return new StmtResult(null, -1, error);
    }

    public boolean failed() {
        return error != null;
    }

    public ErrorClass errorClass() {
        return error == null ? null : error.errorClass();
    }

    /** A short form for traces: "ok", "3 rows", "affected 2", "error CONSTRAINT 23505 ...". */
    public String summary() {
        if (error != null) {
            return "error " + error;
        }
        if (rows != null) {
            return rows.size() + (rows.size() == 1 ? " row" : " rows");
        }
        return updateCount >= 0 ? "affected " + updateCount : "ok"; // INSERT, UPDATE and DELETE alike
    }

    /** An error as the engine reported it, with txfuzz's classification. */
    public record EngineError(ErrorClass errorClass, String sqlState, int vendorCode, String message) {
        @Override
        public String toString() {
            return errorClass + " [" + sqlState + "/" + vendorCode + "] " + message;
        }
    }
}
