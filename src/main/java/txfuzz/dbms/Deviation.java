package txfuzz.dbms;

/**
 * Ways an engine documents that its writes may depart from the First-Commit/Rollback-First-Scheduled
 * serial order (WriteCheck §6.4). The wss oracle tests each permitted one as an explanation of a
 * violation before calling it a bug candidate. These are the names the profiles use; each is bound to the class that holds
 * its words, simulation, promise and negative control in one place, txfuzz.oracle.wss.Mechanisms.
 */
public enum Deviation {
    /**
     * Each statement sees the data committed before it began (plus its own transaction's writes) and
     * locks only the rows it changes: no predicate or gap locks, semi-consistent reads. Typical of
     * READ COMMITTED and below.
     */
    STATEMENT_VISIBILITY,
    /**
     * Like {@link #STATEMENT_VISIBILITY}, but a statement also sees writes of transactions that had
     * not committed yet (READ UNCOMMITTED's dirty reads).
     */
    DIRTY_VISIBILITY,
    /**
     * {@link #STATEMENT_VISIBILITY} as a multiversion engine documents it per part of a statement:
     * the read part (WHERE, joins, subqueries, an INSERT's SELECT, MERGE's join) sees the snapshot
     * taken when the statement began; a row it chose to change (UPDATE, DELETE, MERGE) that a
     * concurrent transaction changed meanwhile is, once that transaction ended, re-checked on its
     * newest version and changed as that version says — MERGE re-evaluates its actions on it, and a
     * chosen row deleted meanwhile is skipped (MERGE tries its NOT MATCHED actions); rows inserted
     * meanwhile stay invisible; unique keys and {@code INSERT ... ON CONFLICT}'s arbitration are
     * checked against the newest committed data. PostgreSQL's READ COMMITTED (EvalPlanQual).
     */
    STATEMENT_SNAPSHOT_WITH_RECHECK,
    /**
     * {@link #STATEMENT_VISIBILITY} for a lock-based engine whose locking scans (UPDATE, DELETE) take no
     * gap locks and walk the table in the order of its clustered key (InnoDB at READ COMMITTED and READ
     * UNCOMMITTED): a write that waited for a row lock went on from that row with the newest committed
     * versions, so the rows ordered before the waited-for row are read as they were when the statement
     * was submitted, and the waited-for row and those after it as they were when it resumed. A row
     * another transaction inserted or moved behind the scan position meanwhile is not seen. Applied
     * only where the scan order is known: a single-table write on a table with a PRIMARY KEY or a key the
     * engine reports it clusters by ({@link Engine#clusteredKey}) whose plan reads that table first, in
     * that key's order ({@link Engine#scansInClusteredKeyOrder}).
     */
    LOCKING_SCAN_IN_KEY_ORDER,
    /**
     * {@link #LOCKING_SCAN_IN_KEY_ORDER} where the subqueries of a write that waited are consistent reads of one snapshot,
     * taken when the statement first ran one: before its wait (the data as of its submission) or after it (as of its
     * resumption), while its scan reads its own table's rows as the key-order scan does (InnoDB at READ COMMITTED and READ
     * UNCOMMITTED: a read view opened at a statement's first consistent read and kept to its end; an uncorrelated subquery's
     * result kept for every row; at READ UNCOMMITTED, where "a possible earlier version of a row might be used", a snapshot of
     * the committed data or of every transaction's writes as they then were, or, no read view being kept there, the data with
     * uncommitted writes as when the scan read each row: before the wait or after it). Explains only where a write that waited
     * has a subquery.
     */
    LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT,
    /**
     * {@link #LOCKING_SCAN_IN_KEY_ORDER} (and, where the level permits it, {@link #LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT})
     * where a blocker's statement held, besides the rows the model derives from what it matched, every row the engine itself
     * holds locked after running it on the same data ({@link Engine#lockedRowsSkippingRead}): a statement may keep the lock on
     * a row its WHERE did not match (InnoDB: a range scan through a secondary index keeps the record that ended its range,
     * MySQL bug #58157); and a write of another transaction that was itself waiting held those of them its scan had met
     * before its own wait. Explains only where a write that waited did so on such a row.
     */
    LOCKING_SCAN_WITH_LOCKS_KEPT_ON_UNMATCHED_ROWS,
    /**
     * {@link #DIRTY_VISIBILITY} for an engine whose UPDATE or DELETE reads each row, and runs that row's subqueries, when its
     * scan reaches the row (H2 at READ UNCOMMITTED): a write that waited for a row lock read the rows ordered before the
     * waited-for row, with everything their subqueries read, as the data were when it was submitted, and the waited-for row
     * and those after it, with their subqueries, as the data were when it resumed; uncommitted writes included both times.
     * Its scan walks the table as it was when it began: a row deleted then (even by a transaction that later rolled back)
     * is skipped, a row inserted while it waited is not met, and a row it meets is read in its newest version, found by its
     * key where the key is the row's place (a row deleted and inserted again with its key is the same row to it).
     * The waited-for row is the first, in scan order, of the rows it matched that a transaction which ended while it waited
     * held, even one that transaction matched and left as it was. Applied only where the scan order is known, as for
     * {@link #LOCKING_SCAN_IN_KEY_ORDER} ({@link Engine#scansInClusteredKeyOrder}, {@link Engine#insertionOrderRead}).
     */
    DIRTY_SCAN_IN_KEY_ORDER,
    /**
     * Every statement of a transaction sees one snapshot taken at its first statement; concurrent
     * transactions may commit writes computed from stale reads as long as they change different
     * rows (snapshot isolation: write skew, phantom writes).
     */
    TRANSACTION_SNAPSHOT,
    /**
     * Like {@link #TRANSACTION_SNAPSHOT}, but each table is read from its own snapshot, taken when the
     * transaction first reads that table, or a table whose snapshot the engine takes with it
     * ({@link Engine#snapshotsTakenWith}) (H2's REPEATABLE READ): a table a transaction has not read
     * yet still shows what other transactions committed since it began.
     */
    TABLE_SNAPSHOTS,
    /**
     * {@link #DIRTY_VISIBILITY} for an engine whose UPDATE reads a row another transaction has written and not committed in
     * that row's newest committed version, and passes one that has none (InnoDB's semi-consistent read at READ UNCOMMITTED),
     * while its other reads, and every other write's, see the uncommitted data: an UPDATE that did not wait ran on the
     * committed versions of its table's rows, its subqueries on the data with uncommitted writes. Explains only where an
     * UPDATE's table held such a row.
     */
    DIRTY_READS_BESIDE_SEMI_CONSISTENT_UPDATES,
    /**
     * The run is serializable, but not necessarily in commit order (PostgreSQL's SSI may order a
     * reader before a writer that committed first): some serial order of the committed transactions
     * reproduces the final state.
     */
    SOME_SERIAL_ORDER;

    /** Whether the rule follows the order a scan walks a table in (and so needs the rows' stored order). */
    public boolean followsScanOrder() {
        return this == LOCKING_SCAN_IN_KEY_ORDER || this == LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT
                || this == LOCKING_SCAN_WITH_LOCKS_KEPT_ON_UNMATCHED_ROWS || this == DIRTY_SCAN_IN_KEY_ORDER;
    }

    /**
     * How a statement that waited is taken to have read under {@link #STATEMENT_VISIBILITY} and {@link #DIRTY_VISIBILITY}: a
     * manual may describe one of them and not the others ({@link Basis.Documented#readPoints}).
     */
    public enum ReadPoint {
        /** everything as of when it was submitted */
        SUBMITTED,
        /** everything as of when it resumed (InnoDB's semi-consistent read: the newest committed version) */
        RESUMED,
        /**
         * UPDATE and DELETE choose their rows as of when they were submitted, then re-check each chosen row's newest version
         * after the wait, re-evaluating the whole statement on the data as of when it resumed — a coarser form of
         * {@link #STATEMENT_SNAPSHOT_WITH_RECHECK}, which keeps the statement's snapshot for the rest of it
         */
        RECHECK
    }

    /**
     * What the engine documents must hold of a run at a level, checked against the trace before a
     * deviation's simulation may count as the explanation of a violation. A simulation that
     * reproduces the final state while one of these fails explains nothing: the engine broke the
     * rule the deviation rests on.
     */
    public enum Precondition {
        /**
         * First-committer-wins (snapshot isolation, or first-updater-wins where the second writer waits):
         * of two concurrent transactions — each committed after the other's snapshot was taken — that
         * both changed or deleted (UPDATE, DELETE, MERGE, upsert) one row version, at most one commits;
         * the other's write or commit fails with a serialization error. It is about commit, not about
         * when the writes ran: whichever committed first and whenever the second write ran, both
         * committing breaks it. Applies to {@link #TRANSACTION_SNAPSHOT} and {@link #TABLE_SNAPSHOTS}.
         * Not declared for InnoDB REPEATABLE READ, which documents the lost update instead.
         */
        FIRST_COMMITTER_WINS,
        /**
         * {@link #FIRST_COMMITTER_WINS} measured on the engine, not promised by its manual: a break is a violation only
         * where an update was lost (the first committer left the row with other values than the second writer's
         * snapshot shows, and no serial order with the first committer first gives the run's reads, write outcomes and
         * final state). A measured rule can say no more than what was seen, and an engine whose conflict check compares
         * values lets a write through where the other transaction left the row's values as they were.
         */
        MEASURED_FIRST_COMMITTER_WINS,
        /**
         * Lock-based writers wait: a write that did not wait on a lock did not touch a row version
         * an uncommitted concurrent write had changed (it would have waited for that write's
         * transaction to end). Applies to {@link #STATEMENT_VISIBILITY}, {@link #DIRTY_VISIBILITY} and
         * {@link #STATEMENT_SNAPSHOT_WITH_RECHECK}.
         * Semi-consistent reads (InnoDB at READ COMMITTED/READ UNCOMMITTED, MDEV-26687) skip rows whose
         * newest committed version does not match, which this rule allows: it only concerns rows the
         * statement's own view shows it changing.
         */
        WRITERS_WAIT_FOR_LOCKED_ROWS
    }

    /**
     * What the re-check of {@link #STATEMENT_SNAPSHOT_WITH_RECHECK} reads for the subqueries of an UPDATE's or DELETE's WHERE
     * when it tests a chosen row's newest version.
     */
    public enum RecheckedSubqueries {
        /** every subquery runs again on the statement's snapshot (measured on H2; the default) */
        RUN_AGAIN_ON_SNAPSHOT,
        /**
         * PostgreSQL's EvalPlanQual: a subquery the planner turned into a join (a correlated EXISTS or NOT EXISTS, an
         * uncorrelated IN, each an AND-ed term of the WHERE) keeps the rows it joined to the chosen row when the statement
         * first ran — a semi-join the one row it matched first, an anti-join none — "When re-running the test query we want
         * to use the same rows from these relations that were joined to the locked rows" (src/backend/executor/README,
         * "EvalPlanQual"); any other subquery runs again on the snapshot
         */
        JOINED_ROWS_KEPT
    }

    /** Which target rows a MERGE locks under {@link #STATEMENT_SNAPSHOT_WITH_RECHECK}, and so re-checks on their newest version. */
    public enum MergeLocks {
        /** the rows an action updates or deletes (PostgreSQL: a matched row no WHEN clause acts on is left as the snapshot has it; the default) */
        ACTED_ROWS,
        /**
         * every row its ON join matched, before a WHEN clause is chosen: a source row whose matched row was deleted meanwhile, or
         * no longer matches on its newest version, is taken as NOT MATCHED (measured on H2, whose MergeUsing locks each matched
         * target row)
         */
        MATCHED_ROWS
    }

    /**
     * How an INSERT-based upsert ({@code INSERT ... ON CONFLICT}, {@code ON DUPLICATE KEY UPDATE},
     * {@code REPLACE}) decides whether its row conflicts with an existing key, at a level that reads
     * from a transaction snapshot. {@code MERGE} always evaluates its join on the statement's view.
     */
    public enum UpsertArbitration {
        /** against the data the statement's view shows (the transaction's snapshot) */
        VIEW,
        /**
         * against the newest committed (and in-progress, waited for) index entries, not the snapshot:
         * PostgreSQL's ON CONFLICT ("INSERT with an ON CONFLICT DO NOTHING clause may have insertion not
         * proceed for a row due to the outcome of another transaction whose effects are not visible to
         * the INSERT snapshot"); a row the snapshot shows but a committed concurrent transaction deleted
         * is no conflict; InnoDB's ON DUPLICATE KEY UPDATE / REPLACE (a locking read of the newest version)
         */
        LATEST_COMMITTED
    }
}
