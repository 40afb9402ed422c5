package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.SetupFailedException;
import txfuzz.model.DbState;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.oracle.wss.DeviationExplainer.Effect;

/**
 * {@link Deviation#LOCKING_SCAN_IN_KEY_ORDER}: InnoDB's locking scan at READ COMMITTED and below, without gap locks, in the
 * order of the clustered key; a write that waited read the rows before the waited-for row as when it began and the rest as
 * when it resumed. One instance per case: it caches plans and keeps where each write was split.
 */
final class LockingScanInKeyOrder extends Mechanism {
    /** Whether the subqueries of a write that waited read one snapshot ({@link LockingScanWithOneSubquerySnapshot}). */
    private final boolean oneSubquerySnapshot;
    /** Whether a blocker held, besides what the model derives, the rows the engine holds after its statement ({@link LockingScanWithLocksKeptOnUnmatchedRows}). */
    private final boolean locksTheEngineHolds;
    /** The subqueries' reads this instance tries, in order. */
    private final List<SubqueryReads> forms;

    LockingScanInKeyOrder() {
        this(false, false);
    }

    /**
     * @param oneSubquerySnapshot the subqueries of a write that waited read one snapshot, as submitted or as resumed, and an
     *                            UPDATE with a subquery on its own table waits as a DELETE does
     *                            ({@link LockingScanWithOneSubquerySnapshot}, which simulates with such an instance)
     * @param locksTheEngineHolds a blocker's statement held the rows the engine holds locked after running it on the same
     *                            data too ({@link LockingScanWithLocksKeptOnUnmatchedRows}, which simulates with such instances)
     */
    LockingScanInKeyOrder(boolean oneSubquerySnapshot, boolean locksTheEngineHolds) {
        super(Deviation.LOCKING_SCAN_IN_KEY_ORDER, Promise.READ_COMMITTED, "LockingScanInKeyOrderTest");
        this.oneSubquerySnapshot = oneSubquerySnapshot;
        this.locksTheEngineHolds = locksTheEngineHolds;
        this.forms = oneSubquerySnapshot ? List.of(SubqueryReads.AS_SUBMITTED, SubqueryReads.AS_RESUMED, SubqueryReads.AS_EACH_ROW_WAS_READ)
                : List.of(SubqueryReads.SPLIT_VIEW);
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return "locking scan in key order without gap locks: each write saw the data committed before it"
                + " began; an UPDATE or DELETE that waited for a row lock read the rows before that row in clustered-key order (insertion"
                + " order for a table without a key) as they were"
                + " when it began, and that row and the rows after it as they were when it resumed, so a row inserted or moved before"
                + " the waited-for row meanwhile was not seen; one that waited again further on, on a row another transaction's"
                + " write or locking read had read with locks, read the rows between the two waits as they were when the first"
                + " ended" + (!oneSubquerySnapshot ? "" : "; the subqueries of such a write, consistent reads, read one"
                + " snapshot, taken before its wait or after it (where plain reads may see uncommitted writes, of the committed data or"
                + " of every transaction's writes as they then were, or, no read view being kept there, the data with uncommitted writes"
                + " as when the scan read each row), and an UPDATE with a subquery on its own table read with locks and no"
                + " semi-consistent read, waiting as a DELETE does") + (!locksTheEngineHolds ? "" : "; a statement of a transaction it"
                + " waited for held every row the engine holds locked after running it on the same data (asked of a second session"
                + " whose locking read passes locked rows), its WHERE matching them or not, and a write still waiting itself held"
                + " those of them its scan had met before its own wait")
                + (searchedBeforeItsWait.isEmpty() ? "" : "; an INSERT … SELECT that waited read its SELECT as of when it began (a"
                + " consistent read) and checked its keys as of when it resumed")
                + " (" + String.join("; ", keyOrderSplits)
                + (searchedBeforeItsWait.isEmpty() ? "" : "; " + String.join(", ", searchedBeforeItsWait) + " searched before its wait") + ")";
    }

    /** Where each write the last key-order simulation split waited, in words ("T2.1 waited on t2 row (0, 1)"). */
    private final List<String> keyOrderSplits = new ArrayList<>();
    /** The blockers' rows and the plans of the writes that waited. */
    private final ScanWaits scanWaits = new ScanWaits();

    /**
     * Where the subqueries of a write that waited read. InnoDB reads a DML statement's subqueries as consistent reads, and at
     * READ COMMITTED "each consistent read [...] sets and reads its own fresh snapshot": a read view opened when the statement
     * first runs one and kept to its end, so every subquery of the statement reads one snapshot, taken before its wait (the
     * data as of its submission) or after it (as of its resumption), whichever first ran a subquery: campaign
     * mariadb-RC-s70-i257, an uncorrelated {@code SET c0 = (SELECT COUNT(*) …)} first run on the waited-for row, read after
     * the wait; i9105, an uncorrelated {@code WHERE EXISTS} run on the first row, before the wait, its result kept for a row
     * met after it; i6509, a correlated one run again after the wait on the read view of before it.
     */
    private enum SubqueryReads {
        /** The split view itself, as the scan's own rows (the rule's first form, tried first). */
        SPLIT_VIEW(""),
        AS_SUBMITTED("as when it began"),
        AS_RESUMED("as when it resumed"),
        /**
         * Where plain reads see uncommitted writes, no read view is kept: the subqueries of each row read the data as they
         * were when the scan read that row, before the wait or after it (campaign mariadb-RU-s78-i9020: {@code SET c1 =
         * (SELECT MAX(s0.c0) FROM t1 s0 WHERE s0.c0 <> t1.c0)} gave NULL for the row read before the wait and 1, a row
         * inserted meanwhile, for the one after it). Tried with uncommitted writes only.
         */
        AS_EACH_ROW_WAS_READ("as when the scan read each row (before the wait, or after it)");

        final String words;

        SubqueryReads(String words) {
            this.words = words;
        }
    }

    /** A conjunct of a WHERE that is {@code column IN (SELECT …)}: the form MariaDB turns into a semi-join. */
    private static final java.util.regex.Pattern SEMI_JOIN_IN = java.util.regex.Pattern.compile(
            "(?i)\\b(WHERE|AND)\\s+\\(?\\s*[\\w.]+\\s+IN\\s*\\(\\s*SELECT\\b");

    /** A subquery in a statement's text. */
    static final java.util.regex.Pattern SUBQUERY = java.util.regex.Pattern.compile("(?i)\\(\\s*SELECT\\b");

    /** Whether a subquery of {@code sql}, a single-table UPDATE or DELETE, reads {@code table} (its target's FROM is its only other). */
    private static boolean subqueryReads(String sql, String table) {
        return SUBQUERY.matcher(sql).find() && ScanWaits.readsOf(table).matcher(sql).find();
    }

    /**
     * {@link Deviation#LOCKING_SCAN_IN_KEY_ORDER}: each committed write, in the order they completed, reads
     * the data committed before it was submitted; one that waited for a lock reads, if it is a single-table
     * UPDATE or DELETE scanning its table in the order of its clustered key, the split view {@link KeyOrderScan} gives
     * (the waited-for row: the first in key order of the rows its blockers held), else the data as of when
     * it resumed; under {@link Deviation#LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT}, the subqueries of a split write read one
     * snapshot instead, as submitted or as resumed ({@link SubqueryReads}). Explains only when at least one write was split
     * (otherwise it is statement visibility). Needs row identities.
     */
    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        sim.initial();
        if (!sim.withRowIds) {
            return false;
        }
        // where plain reads may see uncommitted writes (READ UNCOMMITTED: "a possible earlier version of a row might be used"),
        // the subqueries may have read either: committed data, or every transaction's writes as they were then
        List<Boolean> dirtyToo = oneSubquerySnapshot && sim.semantics.deviations().contains(Deviation.DIRTY_VISIBILITY)
                ? List.of(false, true) : List.of(false);
        for (boolean dirty : dirtyToo) {
            for (SubqueryReads reads : forms) {
                if (reads == SubqueryReads.AS_EACH_ROW_WAS_READ && !dirty) {
                    continue;
                }
                splitWithSubquery = false;
                sim.simulatedCounts.clear();
                if (simulate(sim, reads, dirty) && (reads == SubqueryReads.SPLIT_VIEW || splitWithSubquery)) {
                    return true;
                }
                if (!splitWithSubquery) {
                    break; // no write that waited has a subquery: every form reads as the first did
                }
            }
        }
        return false;
    }

    /**
     * At READ COMMITTED, the data an {@code INSERT … SELECT} that waited read: "If the transaction isolation level is READ
     * COMMITTED, InnoDB does the search on S as a consistent read (no locks)" (MySQL manual, locks set by InnoDB statements),
     * and a consistent read there "sets and reads its own fresh snapshot", set when the search began, before the insert
     * waited; so every table but its own as when it was submitted, its own, whose keys the inserted rows are checked against,
     * as when it resumed (campaign mariadb-RC-s75-i2453: T2's {@code INSERT INTO t1 … SELECT … FROM t0} waited on a key of
     * t1 and did not insert the row another transaction put in t0 meanwhile). Empty where the views collide.
     */
    private static Optional<DbState> searchedAsSubmitted(DeviationExplainer sim, List<Effect> done, StmtRef ref, int submitted,
                                                         int resumed) throws SQLException, SetupFailedException {
        Optional<String> table = sim.tableNamed(KeyOrderScan.insertSelectTarget(sim.testCase.stmt(ref).sql()).orElseThrow());
        Optional<DbState> asSubmitted = sim.view(done, ref.txn(), submitted, false);
        Optional<DbState> asResumed = sim.view(done, ref.txn(), resumed, false);
        if (table.isEmpty() || asSubmitted.isEmpty() || asResumed.isEmpty()) {
            return Optional.empty();
        }
        java.util.Map<String, List<List<String>>> tables = new java.util.LinkedHashMap<>(asSubmitted.get().tables());
        tables.put(table.get(), asResumed.get().tables().getOrDefault(table.get(), List.of()));
        return Optional.of(new DbState(tables));
    }

    /** Where an {@code INSERT … SELECT} that waited searched, before its wait ({@link #searchBeforeItsWait}). */
    private enum SearchBeforeWait {
        /** Not such a statement, or not at READ COMMITTED: read as resumed, as any other write. */
        NONE,
        /** Other tables only: what it read and what it checked its keys against are told apart ({@link #searchedAsSubmitted}). */
        OTHER_TABLES,
        /** Its own table too, with a column list ({@link #ownTableSearchedAsSubmitted}). */
        OWN_TABLE
    }

    /** Whether and where {@code ref}, at READ COMMITTED, searched before a wait on a key it inserts. */
    private static SearchBeforeWait searchBeforeItsWait(DeviationExplainer sim, StmtRef ref) {
        String sql = sim.testCase.stmt(ref).sql();
        Optional<String> target = KeyOrderScan.insertSelectTarget(sql);
        if (sim.testCase.isolation() != txfuzz.model.IsolationLevel.READ_COMMITTED || target.isEmpty()) {
            return SearchBeforeWait.NONE;
        }
        if (!ScanWaits.readsOf(target.get()).matcher(sql).find()) {
            return SearchBeforeWait.OTHER_TABLES;
        }
        return KeyOrderScan.insertSelectHasColumnList(sql) ? SearchBeforeWait.OWN_TABLE : SearchBeforeWait.NONE;
    }

    /** Each write the last simulation split so far, with where it waited (for the rows it held while it waited). */
    private final java.util.Map<StmtRef, SplitScan> splits = new java.util.LinkedHashMap<>();

    /**
     * The effect of an {@code INSERT … SELECT} that waited and whose SELECT reads its own table, at READ COMMITTED: the rows
     * its search found on the data as submitted ({@link #searchedAsSubmitted}), inserted into the table as it was when it
     * resumed (the view the effect is applied to), found by running it into an empty copy of its table (campaign
     * mariadb-RC-s80-i10729: an {@code INSERT INTO t0 … SELECT … FROM t0} waited on the key of a row another transaction had
     * deleted, and after that transaction committed inserted the row its search had read).
     */
    private static ScanEffect ownTableSearchedAsSubmitted(DeviationExplainer sim, StmtRef ref, Optional<DbState> asSubmitted)
            throws SQLException, SetupFailedException {
        String sql = sim.testCase.stmt(ref).sql();
        Optional<String> table = sim.tableNamed(KeyOrderScan.insertSelectTarget(sql).orElseThrow());
        return resumed -> {
            if (table.isEmpty() || asSubmitted.isEmpty()) {
                return Optional.empty();
            }
            Optional<StateDelta> inserted = sim.insertedIntoAnEmptyCopy(asSubmitted.get(), table.get(), sql);
            inserted.ifPresent(d -> sim.simulatedCounts.put(ref, sim.copyCount));
            return inserted;
        };
    }

    /** The INSERT … SELECTs that waited whose search the last simulation read as submitted ({@link #searchedAsSubmitted}). */
    private final List<String> searchedBeforeItsWait = new ArrayList<>();

    /** Whether the last {@link #simulate(DeviationExplainer, SubqueryReads, boolean)} split a write that has a subquery. */
    private boolean splitWithSubquery;
    /** Whether it split a write at a row only {@link ScanWaits#lockedAsTheEngineHolds} gives ({@link #locksTheEngineHolds}). */
    private boolean waitedOnARowOnlyTheEngineShows;

    /** With {@code dirty}, the subqueries of a split write read every transaction's writes as they then were. */
    private boolean simulate(DeviationExplainer sim, SubqueryReads reads, boolean dirty) throws SQLException, SetupFailedException {
        keyOrderSplits.clear();
        splits.clear();
        searchedBeforeItsWait.clear();
        waitedOnARowOnlyTheEngineShows = false;
        // the writes of transactions that rolled back too: their rows were locked until they ended, so a scan waited on them
        // (campaign mariadb-RU-s74-i2360); the committed views leave them out, and only the committed ones are compared
        List<StmtRef> writes = sim.writesInCompletionOrder(true);
        List<Effect> done = new ArrayList<>();
        for (StmtRef ref : writes) {
            ExecutedStmt e = sim.trace.executed(ref).orElseThrow();
            int submitted = e.completedBefore();
            int resumed = sim.trace.position(ref);
            Optional<SplitScan> split = e.blocked() ? splitView(sim, done, ref, submitted, resumed) : Optional.empty();
            split.ifPresent(s -> splits.put(ref, s));
            Optional<DbState> view = split.isPresent() ? Optional.of(split.get().view()) : sim.view(done, ref.txn(), e.blocked() ? resumed : submitted, false);
            // what the write does on the rows its scan read: run as it is, or, its subqueries on one snapshot, on a copy of them
            ScanEffect effect = scanned -> sim.effectOn(Optional.of(scanned), List.of(ref));
            SearchBeforeWait search = split.isEmpty() && e.blocked() ? searchBeforeItsWait(sim, ref) : SearchBeforeWait.NONE;
            if (search == SearchBeforeWait.OTHER_TABLES) {
                view = searchedAsSubmitted(sim, done, ref, submitted, resumed);
                searchedBeforeItsWait.add(ref.toString());
            } else if (search == SearchBeforeWait.OWN_TABLE && !sim.failedInActualRun(ref)) {
                // (a statement that failed had no effect: the plain simulation leaves it out, and so does this one)
                effect = ownTableSearchedAsSubmitted(sim, ref, sim.view(done, ref.txn(), submitted, false));
                searchedBeforeItsWait.add(ref.toString());
            }
            boolean withSubquery = split.isPresent() && SUBQUERY.matcher(sim.testCase.stmt(ref).sql()).find();
            splitWithSubquery |= withSubquery;
            String subqueriesRead = "";
            if (withSubquery && reads == SubqueryReads.AS_EACH_ROW_WAS_READ) {
                effect = eachRowAsRead(sim, ref, split.get(), sim.view(done, ref.txn(), submitted, true), sim.view(done, ref.txn(), resumed, true));
                subqueriesRead = ", its subqueries reading the data " + reads.words + ", uncommitted writes included";
            } else if (withSubquery && reads != SubqueryReads.SPLIT_VIEW) {
                boolean asSubmitted = reads == SubqueryReads.AS_SUBMITTED;
                Optional<DbState> snapshot = dirty ? sim.view(done, ref.txn(), asSubmitted ? submitted : resumed, true)
                        : Optional.of(asSubmitted ? split.get().submitted() : split.get().resumed());
                String table = split.get().table();
                effect = scanned -> snapshot.isEmpty() ? Optional.empty()
                        : sim.effectOnRows(ref, table, scanned.tables().getOrDefault(table, List.of()), snapshot.get());
                subqueriesRead = ", its subqueries reading the data " + reads.words + (dirty ? ", uncommitted writes included" : "");
            }
            Optional<StateDelta> delta = view.isEmpty() ? Optional.empty() : effect.on(view.get());
            if (split.isPresent() && (delta.isEmpty() || sim.actualCount(ref).filter(n -> !sim.reproducedCount(ref, n)).isPresent())) {
                Long onceCount = sim.simulatedCounts.get(ref);
                Optional<Scanned> twice = waitedTwice(sim, done, ref, split.get(), submitted, resumed, effect);
                if (twice.isPresent()) {
                    view = Optional.of(twice.get().view());
                    delta = Optional.of(twice.get().delta());
                } else if (onceCount == null) {
                    sim.simulatedCounts.remove(ref); // the second waits tried leave no count of theirs behind
                } else {
                    sim.simulatedCounts.put(ref, onceCount);
                }
            }
            if (!subqueriesRead.isEmpty()) {
                keyOrderSplits.set(keyOrderSplits.size() - 1, keyOrderSplits.get(keyOrderSplits.size() - 1) + subqueriesRead);
            }
            boolean rolledBack = !sim.committed.contains(ref.txn());
            if (rolledBack && delta.isEmpty()) {
                continue; // what it locked is not known: it holds nothing here, as before it was counted at all
            }
            if (delta.isEmpty() || !rolledBack && sim.skippedALockedRow(done, ref, e, delta.get(), submitted)) {
                return false;
            }
            done.add(new Effect(resumed, ref.txn(), delta.get(), ref, view));
        }
        // with the engine's own locks, only a wait on a row they alone show is this rule's (the rest is the scan's own)
        return !keyOrderSplits.isEmpty() && (!locksTheEngineHolds || waitedOnARowOnlyTheEngineShows)
                && sim.accepted(sim.reproducesActual(done.stream().filter(d -> sim.committed.contains(d.txn())).map(Effect::delta).toList()));
    }

    /**
     * {@link SubqueryReads#AS_EACH_ROW_WAS_READ}: {@code ref} run on the rows its scan read before the row it waited on, its
     * subqueries seeing {@code asSubmitted}, then on that row and those after it, its subqueries seeing {@code asResumed}; its
     * count the two parts' sum. Its own changes stay out of its subqueries' data: MariaDB runs an UPDATE whose subquery reads
     * its own table as a multi-table update, which changes the rows once it has read them all.
     */
    private static ScanEffect eachRowAsRead(DeviationExplainer sim, StmtRef ref, SplitScan split, Optional<DbState> asSubmitted,
                                            Optional<DbState> asResumed) {
        return scanned -> {
            if (asSubmitted.isEmpty() || asResumed.isEmpty()) {
                return Optional.empty();
            }
            List<List<String>> before = new ArrayList<>();
            List<List<String>> after = new ArrayList<>();
            for (List<String> row : scanned.tables().getOrDefault(split.table(), List.of())) {
                Optional<Integer> c = split.key().compare(row, split.waitedOn());
                if (c.isEmpty()) {
                    return Optional.empty();
                }
                (c.get() < 0 ? before : after).add(row);
            }
            Optional<StateDelta> first = sim.effectOnRows(ref, split.table(), before, asSubmitted.get());
            Long firstCount = sim.simulatedCounts.get(ref);
            Optional<StateDelta> second = first.isEmpty() ? Optional.empty() : sim.effectOnRows(ref, split.table(), after, asResumed.get());
            Long secondCount = sim.simulatedCounts.get(ref);
            if (second.isEmpty() || firstCount == null || secondCount == null) {
                return Optional.empty();
            }
            sim.simulatedCounts.put(ref, firstCount + secondCount);
            return Optional.of(first.get().and(second.get()));
        };
    }

    /** What a write does on the rows its scan read, {@code scanned} holding them (its count left in {@link DeviationExplainer#simulatedCounts}). */
    @FunctionalInterface
    private interface ScanEffect {
        Optional<StateDelta> on(DbState scanned) throws SQLException, SetupFailedException;
    }

    /** The identities of {@code rows}. */
    private static Set<String> ids(List<List<String>> rows) {
        Set<String> out = new java.util.HashSet<>();
        rows.forEach(r -> out.add(r.get(r.size() - 1)));
        return out;
    }

    /**
     * A waiting write's view split at the row it waited on, and what a second wait ({@link #waitedTwice}) starts from: its
     * table and key, that row, the data as of its submission and its resumption, and whether it is an UPDATE.
     */
    private record SplitScan(DbState view, String table, KeyOrderScan.ClusteredKey key, List<String> waitedOn, DbState submitted,
            DbState resumed, boolean update) {
    }

    /** A view a write was simulated on, and its effect there. */
    private record Scanned(DbState view, StateDelta delta) {
    }

    /**
     * The view of {@code ref}, which waited, under {@link KeyOrderScan}: empty when the rule does not
     * apply (not a single-table UPDATE or DELETE, no clustered key, a plan not known to scan in key order,
     * no row a blocker held in its table, or keys whose order is not certain).
     */
    private Optional<SplitScan> splitView(DeviationExplainer sim, List<Effect> done, StmtRef ref, int submitted, int resumed) throws SQLException, SetupFailedException {
        StmtKind kind = sim.testCase.stmt(ref).kind();
        Optional<KeyOrderScan.Target> target = KeyOrderScan.target(sim.testCase.stmt(ref).sql());
        if (target.isEmpty() || (kind != StmtKind.UPDATE && kind != StmtKind.DELETE) || sim.failedInActualRun(ref)) {
            return Optional.empty();
        }
        Optional<String> table = sim.tableNamed(target.get().table());
        Optional<DbState> before = sim.view(done, ref.txn(), submitted, false);
        Optional<DbState> after = sim.view(done, ref.txn(), resumed, false);
        if (table.isEmpty() || before.isEmpty() || after.isEmpty()) {
            return Optional.empty();
        }
        // The rows held, when it was submitted, by transactions that ended while it waited — the rows their writes
        // changed, those an UPDATE matched and left as they were (it locked them all), those a failed UPDATE matched
        // (InnoDB keeps a failed statement's locks), those a locking SELECT returned, and the one a failed INSERT collided
        // with on the key: a DELETE waits on the
        // first of their old and new versions; an UPDATE's semi-consistent read (MDEV-26687) passes, without waiting,
        // a locked row whose newest committed version its WHERE does not match (a row inserted by the holder has
        // none), so it waits on the first committed version it matches on the data as of its submission. An UPDATE with a
        // subquery on its own table is one MariaDB runs as a multi-table update, whose scan reads with locks and no
        // semi-consistent read: it waits as a DELETE does (campaign mariadb-RC-s70-i257 waited on a row the holder inserted).
        // Only the rule whose subqueries read one snapshot takes it so; no manual describes it. So does an UPDATE whose WHERE
        // has a conjunct `column IN (SELECT …)` on any table, which MariaDB turns into a semi-join (measured: such an UPDATE
        // matching nothing waits on a row another transaction inserted; with EXISTS, NOT IN, or a subquery in its SET it does
        // not; campaign mariadb-RU-s75-i2720).
        String sql = sim.testCase.stmt(ref).sql();
        boolean semiConsistent = kind == StmtKind.UPDATE
                && !(oneSubquerySnapshot && (subqueryReads(sql, target.get().table()) || SEMI_JOIN_IN.matcher(sql).find()));
        Set<String> matchedOnSubmitted = null;
        if (semiConsistent) {
            Optional<StateDelta> onSubmitted = sim.effectOn(before, List.of(ref));
            // an UPDATE whose SET breaks a key on the rows as submitted (it moves one onto another's key) still matched the
            // rows its WHERE matches there; the split view decides whether the scan ever met the row it collides with
            // (campaign mariadb-RU-s62-i6180: the colliding row was moved behind the scan while it waited)
            Optional<Set<String>> matched = onSubmitted.isPresent()
                    ? Optional.of(sim.matchedRows(before, ref).orElse(DeviationExplainer.rowIds(onSubmitted.get())))
                    : sim.rowsItsWhereMatches(before, ref);
            if (matched.isEmpty()) {
                return Optional.empty();
            }
            matchedOnSubmitted = matched.get();
        }
        ScanWaits.Held holders = scanWaits.held(sim, done, ref, table.get(), submitted, resumed);
        List<List<String>> oldVersions = new ArrayList<>(holders.oldVersions());
        oldVersions.addAll(scanWaits.lockedByFailedUpdates(sim, done, ref, table.get(), submitted, resumed,
                () -> scanWaits.key(sim, ref, target.get(), before.get())));
        oldVersions.addAll(scanWaits.lockedBySelects(sim, done, ref, table.get(), submitted, resumed, false));
        oldVersions.addAll(scanWaits.lockedByFailedInserts(sim, done, ref, table.get(), submitted, resumed,
                () -> scanWaits.key(sim, ref, target.get(), before.get())));
        oldVersions.addAll(heldWhileWaiting(sim, done, ref, table.get(), submitted, resumed, false));
        Set<String> derived = ids(oldVersions);
        derived.addAll(ids(holders.newVersions()));
        if (locksTheEngineHolds) {
            oldVersions.addAll(scanWaits.lockedAsTheEngineHolds(sim, done, ref, table.get(), submitted, resumed));
            oldVersions.addAll(heldWhileWaiting(sim, done, ref, table.get(), submitted, resumed, true));
        }
        List<List<String>> held = new ArrayList<>();
        for (List<String> row : oldVersions) {
            if (matchedOnSubmitted == null || matchedOnSubmitted.contains(row.get(row.size() - 1))) {
                held.add(row);
            }
        }
        if (matchedOnSubmitted == null) {
            held.addAll(holders.newVersions());
        }
        if (held.isEmpty()) {
            return Optional.empty();
        }
        Optional<KeyOrderScan.ClusteredKey> key = scanWaits.key(sim, ref, target.get(), before.get());
        if (key.isEmpty()) {
            return Optional.empty();
        }
        Optional<List<String>> waitedOn = KeyOrderScan.firstInKeyOrder(key.get(), held);
        Optional<DbState> split = waitedOn.flatMap(w -> KeyOrderScan.splitView(before.get(), after.get(), table.get(), key.get(), w));
        if (split.isEmpty()) {
            return Optional.empty();
        }
        boolean onlyTheEngineShows = !derived.contains(waitedOn.get().get(waitedOn.get().size() - 1));
        waitedOnARowOnlyTheEngineShows |= onlyTheEngineShows;
        keyOrderSplits.add(ScanWaits.waitedOn(ref, table.get(), waitedOn.get())
                + (onlyTheEngineShows ? ", which only the engine's own locks show held" : ""));
        return Optional.of(new SplitScan(split.get(), table.get(), key.get(), waitedOn.get(), before.get(), after.get(), matchedOnSubmitted != null));
    }

    /**
     * The rows of {@code table} that writes of other transactions, themselves waiting when {@code ref} was submitted and split
     * earlier in this simulation, held, of those their scans met before the row they waited on: the rows such a write changed
     * or deleted there, as they were (it locks them to the end of its transaction; campaign mariadb-RC-s79-i3917: a DELETE
     * waiting on another transaction's row had deleted the row before it, on which an UPDATE then waited); with {@code
     * asTheEngineHolds}, those the engine holds after such a write run on the data as it was submitted ({@link
     * DeviationExplainer#rowsHeldAfter}): measured on MariaDB, an {@code UPDATE … WHERE c1 IN (SELECT …)} waiting on another
     * transaction's row still held a row it had scanned and not matched (campaign mariadb-RU-s75-i2720). Only writes whose
     * transaction ended while {@code ref} waited.
     */
    private List<List<String>> heldWhileWaiting(DeviationExplainer sim, List<Effect> done, StmtRef ref, String table, int submitted,
                                                int resumed, boolean asTheEngineHolds) throws SQLException, SetupFailedException {
        List<List<String>> out = new ArrayList<>();
        int submitSeq = sim.trace.executed(ref).orElseThrow().submitSeq();
        for (java.util.Map.Entry<StmtRef, SplitScan> w : splits.entrySet()) {
            StmtRef other = w.getKey();
            SplitScan split = w.getValue();
            ExecutedStmt x = sim.trace.executed(other).orElseThrow();
            int end = sim.endPosition(other.txn());
            if (other.txn() == ref.txn() || !split.table().equals(table) || x.submitSeq() >= submitSeq
                    || sim.trace.position(other) < submitted || end < submitted || end >= resumed) {
                continue;
            }
            Set<String> held = asTheEngineHolds ? sim.rowsHeldAfter(split.submitted(), other, table).orElse(Set.of())
                    : ids(done.stream().filter(d -> other.equals(d.ref())).flatMap(d -> d.delta().removed().getOrDefault(table, List.of()).stream()).toList());
            for (List<String> row : split.submitted().tables().getOrDefault(table, List.of())) {
                Optional<Integer> c = split.key().compare(row, split.waitedOn());
                if (held.contains(row.get(row.size() - 1)) && c.isPresent() && c.get() < 0) {
                    out.add(row);
                }
            }
        }
        return out;
    }

    /**
     * Where the view split once does not give {@code ref} its recorded count: the scan may have waited a second time, on a
     * row further on in key order that another transaction, ending after the first wait, had read with locks
     * ({@link ScanWaits#lockingReaders}) or written, reading the rows between the two waits as when the first ended. Campaign
     * mariadb-RC-s21-i1401: a DELETE waited on T1's inserted rows, then on the row T2's DELETE … WHERE EXISTS (SELECT … FROM
     * t1 …) had read, and missed the row T2 inserted between the two meanwhile. The first such view (rows in key order) that
     * gives the recorded count, with {@code effect} there, its words replacing the single wait's; empty when none does.
     * An UPDATE (semi-consistent read) waits only on a row it matches.
     */
    private Optional<Scanned> waitedTwice(DeviationExplainer sim, List<Effect> done, StmtRef ref, SplitScan once, int submitted, int resumed,
                                          ScanEffect effect) throws SQLException, SetupFailedException {
        Optional<Long> recorded = sim.actualCount(ref);
        OptionalInt firstEnd = scanWaits.holderEnd(sim, done, ref, once.table(), submitted, resumed, once.waitedOn());
        if (recorded.isEmpty() || firstEnd.isEmpty()) {
            return Optional.empty();
        }
        List<StmtRef> readers = ScanWaits.lockingReaders(sim, ref, once.table(), firstEnd.getAsInt(), resumed);
        Optional<DbState> between = sim.view(done, ref.txn(), firstEnd.getAsInt() + 1, false);
        if (between.isEmpty()) {
            return Optional.empty();
        }
        // or on a row a transaction still live when the first wait ended had written, and held until it ended before the scan
        // resumed (campaign mariadb-RU-s74-i2360: a DELETE of every row waited on a row inserted by a transaction that rolled
        // back, then on one another transaction inserted meanwhile, further on, and missed the row that one inserted behind it)
        ScanWaits.Held written = scanWaits.held(sim, done, ref, once.table(), firstEnd.getAsInt() + 1, resumed);
        Set<String> writtenIds = ids(written.oldVersions());
        writtenIds.addAll(ids(written.newVersions()));
        List<List<String>> candidates = new ArrayList<>();
        for (List<String> row : between.get().tables().getOrDefault(once.table(), List.of())) {
            if (!readers.isEmpty() || writtenIds.contains(row.get(row.size() - 1))) {
                candidates.add(row);
            }
        }
        if (!once.update()) { // a DELETE waits on a row the holder inserted too; an UPDATE's semi-consistent read passes it
            Set<String> inBetween = ids(between.get().tables().getOrDefault(once.table(), List.of()));
            written.newVersions().stream().filter(r -> !inBetween.contains(r.get(r.size() - 1))).forEach(candidates::add);
        }
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        Optional<Set<String>> matched = once.update() ? sim.matchedRows(between, ref) : Optional.empty();
        for (List<String> row : candidates) {
            Optional<Integer> c = once.key().compare(row, once.waitedOn());
            if (c.isEmpty()) {
                return Optional.empty();
            }
            if (c.get() <= 0 || once.update() && (matched.isEmpty() || !matched.get().contains(row.get(row.size() - 1)))) {
                continue;
            }
            Optional<DbState> view = KeyOrderScan.splitViewTwice(once.submitted(), between.get(), once.resumed(), once.table(), once.key(),
                    once.waitedOn(), row);
            Optional<StateDelta> delta = view.isEmpty() ? Optional.empty() : effect.on(view.get());
            if (delta.isPresent() && recorded.get().equals(sim.simulatedCounts.get(ref))) {
                String holder = readers.isEmpty() ? "another transaction had written"
                        : String.join(" or ", readers.stream().map(StmtRef::toString).toList()) + " had read with locks"
                        + (writtenIds.contains(row.get(row.size() - 1)) ? " or another transaction had written" : "");
                keyOrderSplits.set(keyOrderSplits.size() - 1, ScanWaits.waitedOn(ref, once.table(), once.waitedOn()) + ", then on "
                        + ScanWaits.rowText(once.table(), row) + ", which " + holder);
                return Optional.of(new Scanned(view.get(), delta.get()));
            }
        }
        return Optional.empty();
    }
}
