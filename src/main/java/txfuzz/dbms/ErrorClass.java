package txfuzz.dbms;

/** What an error from the engine means for the test, decided by SQLState and vendor code. */
public enum ErrorClass {
    /** The engine chose this transaction as a deadlock victim. */
    DEADLOCK,
    /** Serialization failure / write-write conflict / first-updater-wins (SQLState 40001 and kin). */
    SERIALIZATION,
    /** A lock wait timed out (should not happen: timeouts are raised above the test's lifetime). */
    LOCK_TIMEOUT,
    /** SQLite's SQLITE_BUSY: the engine refused instead of waiting. */
    BUSY,
    /** Constraint violation: PK, UNIQUE, NOT NULL, CHECK, FK (SQLState class 23). */
    CONSTRAINT,
    /** Data error: division by zero, overflow, bad cast (class 22). */
    DATA,
    /** The statement is not valid for this engine: syntax, unknown object, unsupported feature. */
    INVALID_STATEMENT,
    /** The transaction is in a failed state and refuses statements until ROLLBACK (25P02). */
    IN_FAILED_TRANSACTION,
    /** The connection to the engine is gone. A finding. */
    CONNECTION_LOST,
    /** The engine failed internally (H2 "General error", an exception from inside the engine). A finding. */
    INTERNAL,
    /** Anything else. */
    OTHER;

    /** Errors that are a finding by themselves (the explicit oracle). */
    public boolean isEngineFailure() {
        return this == CONNECTION_LOST || this == INTERNAL;
    }

    /** Errors raised by concurrency control. */
    public boolean isConcurrencyConflict() {
        return this == DEADLOCK || this == SERIALIZATION || this == LOCK_TIMEOUT || this == BUSY;
    }
}
