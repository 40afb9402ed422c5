package txfuzz.dbms;

/**
 * SQL features a generator may use. A target's dialect lists the ones its engine accepts; the
 * differential oracle generates for the intersection of several dialects.
 */
public enum Feature {
    // column types
    TYPE_INT, TYPE_DOUBLE, TYPE_VARCHAR,
    // constraints and indexes
    PRIMARY_KEY, UNIQUE, NOT_NULL, CHECK, DEFAULT, FOREIGN_KEY, INDEX, UNIQUE_INDEX,
    // queries
    JOIN_INNER, JOIN_LEFT, JOIN_RIGHT, JOIN_FULL, SUBQUERY_IN, SUBQUERY_EXISTS, SUBQUERY_SCALAR,
    AGGREGATE, GROUP_BY, ORDER_BY, UNION, CASE_WHEN, BETWEEN, LIKE, COALESCE,
    /** SELECT ... FOR UPDATE. */
    FOR_UPDATE,
    /** SELECT ... FOR SHARE (PostgreSQL, MariaDB 10.11+ spells it LOCK IN SHARE MODE too). */
    FOR_SHARE,
    LOCK_IN_SHARE_MODE,
    // writes
    INSERT_SELECT, MULTI_ROW_INSERT,
    /** UPDATE/DELETE whose WHERE has a subquery over the same table being written. */
    WRITE_SUBQUERY_SAME_TABLE,
    /** UPDATE/DELETE whose WHERE has a subquery over another table. */
    WRITE_SUBQUERY_OTHER_TABLE,
    /** UPDATE ... SET c = (scalar subquery). */
    UPDATE_SET_SUBQUERY,
    MERGE, INSERT_ON_CONFLICT, REPLACE, INSERT_ON_DUPLICATE_KEY,
    /** DELETE ... RETURNING (PostgreSQL, SQLite 3.35+, MariaDB 10.0.5+, DuckDB): row tracking reads the deleted versions from it. */
    DELETE_RETURNING,
    // engine behaviour the row tracking must not change
    /**
     * An UPDATE that sets a row to the values it holds does not write it (InnoDB: no new version, so a
     * REPEATABLE READ reader keeps its snapshot of the row; an upsert counts it as found, not changed).
     * Row tracking appends its tag only to rows whose other values change, with MySQL's {@code <=>} and
     * {@code IF}, and MySQL's left-to-right SET (the tag's assignment comes first, on the old values).
     */
    UNCHANGED_ROWS_NOT_WRITTEN,
    /**
     * Locking reads and data-changing statements (with their subqueries) read the newest committed
     * version of each row, not the transaction's snapshot, which only plain SELECTs read (InnoDB's
     * "current reads"): a plain read before such a statement does not show what it reads.
     */
    CURRENT_READS,
    /**
     * A column declared INTEGER PRIMARY KEY is the row id, which the engine fills in when an insert
     * leaves it out (SQLite: https://www.sqlite.org/lang_createtable.html#rowid): its values are generated keys.
     */
    INTEGER_PRIMARY_KEY_IS_ROWID
}
