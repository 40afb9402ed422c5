package txfuzz.history;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One thing a statement did to one row (or, for a predicate read, to one table). {@code stmt} is
 * the index of the statement in its transaction (0-based, BEGIN included, as in
 * {@link txfuzz.model.StmtRef}); reads the instrumentation adds on a statement's behalf (the
 * locking read before a DELETE or REPLACE) carry the index of that statement.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "op")
@JsonSubTypes({
        @JsonSubTypes.Type(value = Read.class, name = "read"),
        @JsonSubTypes.Type(value = Write.class, name = "write"),
        @JsonSubTypes.Type(value = PredicateRead.class, name = "pred")})
public sealed interface Op permits Read, Write, PredicateRead {
    int stmt();

    String table();

    static int required(Integer v, String name) {
        if (v == null) {
            throw new IllegalArgumentException(name + " is missing");
        }
        return v;
    }

    static void checkCommon(int stmt, String table) {
        if (stmt < 0) {
            throw new IllegalArgumentException("stmt must be >= 0, not " + stmt);
        }
        if (table == null || table.isEmpty()) {
            throw new IllegalArgumentException("table is missing");
        }
    }

    static void checkRow(String row) {
        if (row == null || row.isEmpty()) {
            throw new IllegalArgumentException("row (the rowId) is missing");
        }
    }
}
