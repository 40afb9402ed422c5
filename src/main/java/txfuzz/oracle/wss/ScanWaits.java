package txfuzz.oracle.wss;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;
import txfuzz.dbms.Database;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.StateLoader;
import txfuzz.model.DbState;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.oracle.wss.DeviationExplainer.Effect;

/**
 * What the scan-order mechanisms ({@link LockingScanInKeyOrder}, {@link DirtyScanInKeyOrder}) need to know of a write that
 * waited: the rows its blockers held, and the key its table is scanned in. One instance per mechanism per case: it caches
 * the engine's plans and what each holder's UPDATE matched.
 */
final class ScanWaits {
    /** Per statement: its table's clustered key when the engine's plan scans it first, in key order; empty otherwise. */
    private final Map<StmtRef, Optional<KeyOrderScan.ClusteredKey>> keyOrderScans = new HashMap<>();
    /** Per single-table UPDATE: the identities of the rows it matched on the view it was simulated on. */
    private final Map<StmtRef, Optional<Set<String>>> matchedByHolder = new HashMap<>();

    /**
     * The rows of a table held, when a write was submitted, by the transactions that ended while it waited: those their
     * writes changed or deleted, as they were before, and those they matched and left as they were ({@code oldVersions});
     * the rows their writes changed, as they left them, and those they inserted ({@code newVersions}).
     */
    record Held(List<List<String>> oldVersions, List<List<String>> newVersions) {
    }

    /** See {@link Held}: {@code ref}, of another transaction than the holders', was submitted at {@code submitted} and resumed at {@code resumed}. */
    Held held(DeviationExplainer sim, List<Effect> done, StmtRef ref, String table, int submitted, int resumed) throws SQLException, SetupFailedException {
        List<List<String>> oldVersions = new ArrayList<>();
        List<List<String>> newVersions = new ArrayList<>();
        for (Effect o : holders(sim, done, ref, submitted, resumed)) {
            Held h = heldBy(sim, o, table);
            oldVersions.addAll(h.oldVersions());
            newVersions.addAll(h.newVersions());
        }
        return new Held(oldVersions, newVersions);
    }

    /** What one holder's write {@code o} holds of {@code table} ({@link Held}). */
    private Held heldBy(DeviationExplainer sim, Effect o, String table) throws SQLException, SetupFailedException {
        List<List<String>> oldVersions = new ArrayList<>(o.delta().removed().getOrDefault(table, List.of()));
        oldVersions.addAll(matchedUnchanged(sim, o, table));
        return new Held(oldVersions, o.delta().added().getOrDefault(table, List.of()));
    }

    /**
     * The schedule position at which the first of the transactions {@link #held} counts as holding {@code row} (by identity)
     * ended; empty when none holds it.
     */
    OptionalInt holderEnd(DeviationExplainer sim, List<Effect> done, StmtRef ref, String table, int submitted, int resumed,
            List<String> row) throws SQLException, SetupFailedException {
        String id = row.get(row.size() - 1);
        OptionalInt first = OptionalInt.empty();
        for (Effect o : holders(sim, done, ref, submitted, resumed)) {
            Held h = heldBy(sim, o, table);
            int end = sim.endPosition(o.txn());
            boolean holds = java.util.stream.Stream.concat(h.oldVersions().stream(), h.newVersions().stream())
                    .anyMatch(r -> id.equals(r.get(r.size() - 1)));
            if (holds && (first.isEmpty() || end < first.getAsInt())) {
                first = OptionalInt.of(end);
            }
        }
        return first;
    }

    /** The effects of other transactions than {@code ref}'s that were done when it was submitted and whose transactions ended while it waited. */
    private static List<Effect> holders(DeviationExplainer sim, List<Effect> done, StmtRef ref, int submitted, int resumed) {
        return done.stream().filter(o -> {
            int end = sim.endPosition(o.txn());
            return o.txn() != ref.txn() && o.position() < submitted && end >= submitted && end < resumed;
        }).toList();
    }

    /** A FROM or JOIN of {@code table} in a statement's text: a read of it (the target of an UPDATE or DELETE … FROM aside). */
    static Pattern readsOf(String table) {
        return Pattern.compile("\\b(FROM|JOIN)\\s+" + Pattern.quote(table) + "\\b", Pattern.CASE_INSENSITIVE);
    }

    /**
     * The statements, one per transaction (its first such), of the transactions other than {@code ref}'s that ended after
     * position {@code after} and before {@code resumed} and ran, before that, a statement that reads {@code table} with locks:
     * a subquery of an UPDATE or DELETE (InnoDB locks the rows a write's subquery reads until the transaction ends, even at
     * READ COMMITTED: measured, docs/bugs.md {@code mariadb-RC-s21-i1401}), or a SELECT … FOR UPDATE, FOR SHARE or LOCK IN
     * SHARE MODE. A statement that failed is left out.
     */
    static List<StmtRef> lockingReaders(DeviationExplainer sim, StmtRef ref, String table, int after, int resumed) {
        Pattern reads = readsOf(table);
        Pattern deletesFrom = Pattern.compile("^\\s*DELETE\\s+FROM\\s+" + Pattern.quote(table) + "\\b", Pattern.CASE_INSENSITIVE);
        List<StmtRef> out = new ArrayList<>();
        for (int i = 0; i < resumed; i++) {
            ExecutedStmt x = sim.trace.schedule().get(i);
            int txn = x.ref().txn();
            if (txn == ref.txn() || sim.trace.outcome(txn) == null || x.result().error() != null || out.stream().anyMatch(r -> r.txn() == txn)) {
                continue;
            }
            int end = sim.endPosition(txn);
            String sql = sim.testCase.stmt(x.ref()).sql();
            long readsOfTable = reads.matcher(sql).results().count();
            boolean lockingRead = switch (sim.testCase.stmt(x.ref()).kind()) {
                case UPDATE -> readsOfTable > 0;
                case DELETE -> readsOfTable > (deletesFrom.matcher(sql).find() ? 1 : 0); // its own FROM is not a read of the table
                case SELECT -> readsOfTable > 0 && LOCKING_SELECT.matcher(sql).find();
                default -> false;
            };
            if (lockingRead && end > after && end < resumed) {
                out.add(x.ref());
            }
        }
        return out;
    }

    private static final Pattern LOCKING_SELECT = Pattern.compile(
            "\\b(FOR\\s+UPDATE|FOR\\s+SHARE|LOCK\\s+IN\\s+SHARE\\s+MODE)\\b", Pattern.CASE_INSENSITIVE);

    /** The rows of {@code table} that {@code o}'s UPDATE matched and left as they were, as it saw them. */
    private List<List<String>> matchedUnchanged(DeviationExplainer sim, Effect o, String table) throws SQLException, SetupFailedException {
        if (o.ref() == null || o.view().isEmpty() || sim.testCase.stmt(o.ref()).kind() != StmtKind.UPDATE) {
            return List.of();
        }
        if (!matchedByHolder.containsKey(o.ref())) {
            matchedByHolder.put(o.ref(), sim.matchedRows(o.view(), o.ref()));
        }
        Optional<Set<String>> matched = matchedByHolder.get(o.ref());
        if (matched.isEmpty()) {
            return List.of();
        }
        Set<String> changed = DeviationExplainer.rowIds(o.delta());
        List<List<String>> out = new ArrayList<>();
        for (List<String> row : o.view().get().tables().getOrDefault(table, List.of())) {
            String id = row.get(row.size() - 1);
            if (matched.get().contains(id) && !changed.contains(id)) {
                out.add(row);
            }
        }
        return out;
    }

    /**
     * The rows of {@code table} locked, as they were read, by a single-table locking {@code SELECT} ({@code FOR UPDATE}, {@code
     * FOR SHARE}, {@code LOCK IN SHARE MODE}) of another transaction that completed before {@code ref} was submitted and whose
     * transaction ended while {@code ref} waited: such a SELECT locks every row it returns until its transaction ends (H2:
     * DirtyScanInKeyOrderTest, campaign h2-RU-s60-i15645; MariaDB: "Selected rows can be locked using LOCK IN SHARE MODE or FOR
     * UPDATE. In both cases, a lock is acquired on the rows read by the query, and it will be released when the current
     * transaction is committed", https://mariadb.com/kb/en/lock-in-share-mode; LockingScanInKeyOrderTest, campaign
     * mariadb-RU-s62-i5396).
     * Its WHERE, run as a marking UPDATE, finds them; uncommitted writes are read when {@code dirty}.
     */
    List<List<String>> lockedBySelects(DeviationExplainer sim, List<Effect> done, StmtRef ref, String table, int submitted, int resumed,
                                       boolean dirty) throws SQLException, SetupFailedException {
        return lockedBy(sim, done, ref, table, submitted, resumed, dirty, marking(sim, table, x -> x.result().error() == null
                && sim.testCase.stmt(x.ref()).kind() == StmtKind.SELECT
                ? KeyOrderScan.markingLockedRows(sim.testCase.stmt(x.ref()).sql(), table, DeviationExplainer.ROW_ID) : Optional.empty()));
    }

    /**
     * The rows of {@code table} whose WHERE a failed single-table UPDATE of another transaction matched, in the same window:
     * InnoDB keeps the locks a failed statement took, "Locks are not released in a rollback of a single SQL statement" (MySQL
     * manual, InnoDB Error Handling; campaign mariadb-RC-s62-i6073: an UPDATE of every row that failed on a duplicate key
     * held them). Its WHERE, run as a marking UPDATE without its SET, finds them. Where that WHERE itself fails, the UPDATE
     * failed on the first row, in {@code key}'s order, whose WHERE raises the error: a scan locks "every index record that is
     * scanned" (MySQL manual, locks set by InnoDB statements) before its WHERE reads it, so it held that row and the rows
     * before it that it matched (campaign mariadb-RU-s74-i2824: {@code WHERE c1 IN (0)} on a VARCHAR '' failed, in strict
     * mode, on the row another UPDATE then waited for).
     */
    List<List<String>> lockedByFailedUpdates(DeviationExplainer sim, List<Effect> done, StmtRef ref, String table, int submitted,
                                             int resumed, ScanOrder key) throws SQLException, SetupFailedException {
        return lockedBy(sim, done, ref, table, submitted, resumed, false, x -> {
            String sql = sim.testCase.stmt(x.ref()).sql();
            Optional<String> marked = x.result().failed() && sim.testCase.stmt(x.ref()).kind() == StmtKind.UPDATE
                    && KeyOrderScan.target(sql).map(t -> t.table().equalsIgnoreCase(table)).orElse(false)
                    ? KeyOrderScan.markingOnlyWhatItMatches(sql, DeviationExplainer.ROW_ID) : Optional.empty();
            return marked.map(marking -> read -> {
                Optional<Set<String>> matched = sim.rowsMarked(Optional.of(read), x.ref(), marking);
                if (matched.isPresent()) {
                    return read.tables().getOrDefault(table, List.of()).stream().filter(r -> matched.get().contains(r.get(r.size() - 1))).toList();
                }
                return scannedUpToItsFailure(sim, x.ref(), marking, read, table, key);
            });
        });
    }

    /**
     * The rows of {@code table} a scan in {@code key}'s order locked up to the first row on which {@code marking} (a failed
     * UPDATE's WHERE, marking what it matches) fails, that row included, found one row at a time; none where no single row
     * fails it or the order is not known.
     */
    private static List<List<String>> scannedUpToItsFailure(DeviationExplainer sim, StmtRef failed, String marking, DbState read, String table,
                                                            ScanOrder key) throws SQLException, SetupFailedException {
        Optional<KeyOrderScan.ClusteredKey> order = key.get();
        if (order.isEmpty()) {
            return List.of();
        }
        List<List<String>> rows = new ArrayList<>(read.tables().getOrDefault(table, List.of()));
        for (int i = 1; i < rows.size(); i++) { // insertion sort: a pair whose order is not certain gives up
            for (int j = i; j > 0; j--) {
                Optional<Integer> c = order.get().compare(rows.get(j - 1), rows.get(j));
                if (c.isEmpty()) {
                    return List.of();
                }
                if (c.get() <= 0) {
                    break;
                }
                java.util.Collections.swap(rows, j - 1, j);
            }
        }
        List<List<String>> locked = new ArrayList<>();
        for (List<String> row : rows) {
            Map<String, List<List<String>>> tables = new java.util.LinkedHashMap<>(read.tables());
            tables.put(table, List.of(row));
            Optional<Set<String>> matched = sim.rowsMarked(Optional.of(new DbState(tables)), failed, marking);
            if (matched.isEmpty()) {
                locked.add(row);
                return locked;
            }
            if (!matched.get().isEmpty()) {
                locked.add(row);
            }
        }
        return List.of();
    }

    /**
     * The rows of {@code table} a failed INSERT of another transaction, in the same window, collided with on the key the rows
     * are stored in ({@code key}, asked for only when there is such an INSERT): InnoDB keeps a shared lock on the record a
     * duplicate-key error met, "If a duplicate-key error occurs, a shared lock on the duplicate index record is set" (MySQL
     * manual, locks set by InnoDB statements; campaign mariadb-RU-s68-i2584). The INSERT's rows are found by running it into
     * an empty copy of the table on the data as it read them; an INSERT that fails there too (no column list beside the
     * identity column) is left out.
     */
    List<List<String>> lockedByFailedInserts(DeviationExplainer sim, List<Effect> done, StmtRef ref, String table, int submitted,
                                             int resumed, ScanOrder key) throws SQLException, SetupFailedException {
        return lockedBy(sim, done, ref, table, submitted, resumed, false, x -> {
            String sql = sim.testCase.stmt(x.ref()).sql();
            if (!x.result().failed() || sim.testCase.stmt(x.ref()).kind() != StmtKind.INSERT || !KeyOrderScan.insertsInto(sql, table)) {
                return Optional.empty();
            }
            return Optional.of(read -> {
                Optional<KeyOrderScan.ClusteredKey> order = key.get();
                Optional<StateDelta> inserted = order.isEmpty() ? Optional.empty() : sim.insertedIntoAnEmptyCopy(read, table, sql);
                List<List<String>> collided = new ArrayList<>();
                for (List<String> row : inserted.map(d -> d.added().getOrDefault(table, List.of())).orElse(List.of())) {
                    for (List<String> existing : read.tables().getOrDefault(table, List.of())) {
                        if (order.get().compare(row, existing).equals(Optional.of(0))) {
                            collided.add(existing);
                        }
                    }
                }
                return collided;
            });
        });
    }

    /**
     * The rows of {@code table} the engine itself holds locked after a write or locking read of another transaction, in the
     * same window, run on the data as that statement read them ({@link DeviationExplainer#rowsHeldAfter}): besides those the
     * rules above derive, a row the statement kept locked without matching it (MariaDB: a range scan through a secondary
     * index keeps the record that ended its range, MySQL bug #58157, campaign mariadb-RU-s75-i712).
     */
    List<List<String>> lockedAsTheEngineHolds(DeviationExplainer sim, List<Effect> done, StmtRef ref, String table, int submitted,
                                              int resumed) throws SQLException, SetupFailedException {
        return lockedBy(sim, done, ref, table, submitted, resumed, false, x -> {
            StmtKind kind = sim.testCase.stmt(x.ref()).kind();
            boolean locks = kind.isWrite() || kind == StmtKind.SELECT && LOCKING_SELECT.matcher(sim.testCase.stmt(x.ref()).sql()).find();
            return !locks ? Optional.empty() : Optional.of(read -> {
                Optional<Set<String>> held = sim.rowsHeldAfter(read, x.ref(), table);
                return read.tables().getOrDefault(table, List.of()).stream()
                        .filter(r -> held.isPresent() && held.get().contains(r.get(r.size() - 1))).toList();
            });
        });
    }

    /** The order a waiting statement's scan follows ({@link #key}), asked for when needed: it costs a database and a plan. */
    @FunctionalInterface
    interface ScanOrder {
        Optional<KeyOrderScan.ClusteredKey> get() throws SQLException, SetupFailedException;
    }

    /** The rows of a table a blocker's statement locked, found on the data as that statement read them. */
    @FunctionalInterface
    private interface LockedRows {
        List<List<String>> on(DbState read) throws SQLException, SetupFailedException;
    }

    /** {@link LockedRows} of a statement {@code marking} rewrites into one that changes each row it locked (empty: none such). */
    private static java.util.function.Function<ExecutedStmt, Optional<LockedRows>> marking(DeviationExplainer sim, String table,
            java.util.function.Function<ExecutedStmt, Optional<String>> marking) {
        return x -> marking.apply(x).map(marked -> read -> {
            Optional<Set<String>> locked = sim.rowsMarked(Optional.of(read), x.ref(), marked);
            List<List<String>> out = new ArrayList<>();
            for (List<String> row : locked.isEmpty() ? List.<List<String>>of() : read.tables().getOrDefault(table, List.of())) {
                if (locked.get().contains(row.get(row.size() - 1))) {
                    out.add(row);
                }
            }
            return out;
        });
    }

    /**
     * The rows of {@code table}, as they were read, that {@code locks} finds a statement locked (empty: not a statement it
     * reads locks of), over the statements of other transactions that completed before {@code ref} was submitted and whose
     * transactions ended while {@code ref} waited.
     */
    private static List<List<String>> lockedBy(DeviationExplainer sim, List<Effect> done, StmtRef ref, String table, int submitted,
                                               int resumed, boolean dirty, java.util.function.Function<ExecutedStmt, Optional<LockedRows>> locks)
            throws SQLException, SetupFailedException {
        List<List<String>> out = new ArrayList<>();
        for (ExecutedStmt x : sim.trace.schedule()) {
            int txn = x.ref().txn();
            if (txn == ref.txn() || sim.trace.outcome(txn) == null || sim.trace.position(x.ref()) >= submitted) {
                continue;
            }
            int end = sim.endPosition(txn);
            Optional<LockedRows> locked = end < submitted || end >= resumed ? Optional.empty() : locks.apply(x);
            if (locked.isEmpty()) {
                continue;
            }
            int readAt = x.blocked() ? sim.trace.position(x.ref()) : x.completedBefore();
            // as it read them: its own transaction's later writes, which the view shows its own transaction whenever done, left out
            // (campaign mariadb-RU-s66-i1160: the holder's UPDATE after its SELECT … FOR UPDATE moved the row the SELECT locked)
            List<Effect> before = done.stream().filter(d -> d.position() < readAt).toList();
            Optional<DbState> read = sim.view(before, txn, readAt, dirty);
            if (read.isPresent()) {
                out.addAll(locked.get().on(read.get()));
            }
        }
        return out;
    }

    /**
     * The order the engine's plan for {@code ref} scans {@code target} in, on a database holding {@code view}: its clustered
     * key (or the hidden row id's order, for a table the engine stores in insertion order) when the plan scans that first,
     * else the secondary index's the plan reads it through ({@link txfuzz.dbms.Engine#secondaryIndexScanOrder}); empty
     * otherwise.
     */
    Optional<KeyOrderScan.ClusteredKey> key(DeviationExplainer sim, StmtRef ref, KeyOrderScan.Target target, DbState view)
            throws SQLException, SetupFailedException {
        if (!keyOrderScans.containsKey(ref)) {
            keyOrderScans.put(ref, planned(sim, ref, target, view));
        }
        return keyOrderScans.get(ref);
    }

    private static Optional<KeyOrderScan.ClusteredKey> planned(DeviationExplainer sim, StmtRef ref, KeyOrderScan.Target target, DbState view)
            throws SQLException, SetupFailedException {
        try (Database db = sim.target.freshDatabase(); Connection c = db.connect(sim.testCase.isolation(), sim.testCase.mode());
             Statement s = c.createStatement()) {
            for (String sql : sim.testCase.setup()) {
                s.execute(sql);
            }
            sim.addRowIdColumns(s);
            try {
                StateLoader.load(sim.target, c, sim.testCase.tables(), view);
            } catch (SQLException | RuntimeException e) {
                return Optional.empty();
            }
            List<String> keyColumns = KeyOrderScan.keyColumns(sim.target.engine(), c, target.table());
            boolean keyless = keyColumns.isEmpty();
            boolean hiddenRowId = keyless && sim.insertionOrdered.contains(target.table().toLowerCase(java.util.Locale.ROOT));
            Optional<KeyOrderScan.ClusteredKey> key = KeyOrderScan.byColumns(c, target.table(), keyColumns); // its clustered key
            if (key.isEmpty() && hiddenRowId) {
                key = KeyOrderScan.byColumns(c, target.table(), List.of(DeviationExplainer.ROW_ID)); // the hidden row id's order: insertion order
            }
            String sql = sim.testCase.stmt(ref).sql();
            if (key.isPresent() && KeyOrderScan.scansInKeyOrder(sim.target.engine(), c, sql, target)) {
                return key;
            }
            // a scan through a secondary index follows its entries: the index's columns, then the stored order's key (campaigns
            // mariadb-RC-s58-i1237, mariadb-RU-s67-i3728: a row inserted before the waited one in the index's order was missed)
            Optional<List<String>> index = sim.target.engine().secondaryIndexScanOrder(c, sql, target.table(), target.name());
            if (index.isEmpty()) {
                return Optional.empty();
            }
            List<String> columns = new ArrayList<>(index.get());
            if (hiddenRowId) {
                columns.add(DeviationExplainer.ROW_ID);
            } else if (keyless) {
                return Optional.empty(); // rows ordered by nothing txfuzz can follow
            }
            return KeyOrderScan.byColumns(c, target.table(), columns);
        } catch (SQLException e) {
            return Optional.empty(); // the plan cannot be asked for: the order is not known
        }
    }

    /** Where {@code ref} waited, in words: "T2.1 waited on t2 row (0, 1)" (the row without its identity). */
    static String waitedOn(StmtRef ref, String table, List<String> row) {
        return "T" + ref.txn() + "." + ref.index() + " waited on " + rowText(table, row);
    }

    /** A row of {@code table} in words, without its identity: "t1 row (19, 0)". */
    static String rowText(String table, List<String> row) {
        return table + " row (" + String.join(", ", row.subList(0, row.size() - 1).stream().map(String::valueOf).toList()) + ")";
    }
}
