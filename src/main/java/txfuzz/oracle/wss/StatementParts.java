package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.dbms.Deviation;
import txfuzz.exec.SetupFailedException;
import txfuzz.model.DbState;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * The effect of one write under {@link txfuzz.dbms.Deviation#STATEMENT_SNAPSHOT_WITH_RECHECK}, part
 * by part: its read part on the snapshot taken when it was submitted, the rows it chose and a
 * concurrent transaction changed meanwhile re-checked on their newest version, its key checks on the
 * newest committed data (the data as of when it completed). Every row carries its identity (last
 * column), so "the same row in a newer version" is known.
 *
 * <ul>
 * <li>UPDATE, DELETE, MERGE: run on the snapshot; the rows it chose there that changed meanwhile are
 *     replaced by their newest version (dropped when deleted meanwhile) and the statement runs again
 *     on that view, so its WHERE, join and actions are re-evaluated on them, while rows inserted
 *     meanwhile stay invisible. A chosen row whose change left its values as they were does not show
 *     in the snapshot run's delta; the run's update count says how many there were, and each subset of
 *     the rows that changed meanwhile up to that many is a candidate. Where a MERGE locks every row its
 *     join matched ({@link Deviation.MergeLocks#MATCHED_ROWS}), the chosen rows are known instead: those
 *     its ON join matched on the snapshot, acted on or not.</li>
 * <li>INSERT (VALUES or SELECT): its rows computed on the snapshot without key checks, then the keys
 *     checked on the newest committed data plus those rows.</li>
 * <li>INSERT ... ON CONFLICT: the conflict arbitrated on the newest committed data of the table it
 *     inserts into; other tables read on the snapshot. (A SELECT from the target table itself then
 *     reads the newest data too: not modelled apart.)</li>
 * </ul>
 */
final class StatementParts {
    /** The simulations this model is built from, run by {@link DeviationExplainer} on a fresh database each. */
    interface Simulation {
        /** What {@code ref}, run alone on {@code view}, removes and adds; empty when it fails there. Keys checked only when {@code keepKeys}. */
        Optional<StateDelta> effectOn(DbState view, StmtRef ref, boolean keepKeys) throws SQLException, SetupFailedException;

        /** {@link #effectOn} with {@code sql}, a rewriting of {@code ref}'s statement, run in its place; keys not checked. */
        Optional<StateDelta> effectOfRewritten(DbState view, StmtRef ref, String sql) throws SQLException, SetupFailedException;

        /** The update count the last simulation of {@code ref} gave. */
        Long count(StmtRef ref);

        /** Whether {@code state} satisfies the case's keys. */
        boolean keysHold(DbState state) throws SQLException, SetupFailedException;

        /**
         * What {@code sql} — {@code ref} rewritten to change {@code copy}, an empty copy of {@code table}
         * holding only {@code rows} — removes from and adds to those rows, every other read seeing {@code view};
         * {@link #count} then gives the rows of the copy it processed.
         */
        Optional<StateDelta> effectOnCopy(DbState view, StmtRef ref, String table, String copy, String sql, List<List<String>> rows,
                                          Map<String, JoinedCopy> joined)
                throws SQLException, SetupFailedException;

        /**
         * The rows {@code ref}, an INSERT into {@code table}, adds when run into an empty copy of the table, as rows of
         * {@code table} with identities of their own, every read seeing {@code view}; {@link #count} then gives them.
         */
        Optional<StateDelta> effectOnEmptyCopy(DbState view, StmtRef ref, String table) throws SQLException, SetupFailedException;
    }

    /** A table {@code sql} reads in place of a subquery's table {@code of}: the rows that subquery joined, and only them. */
    record JoinedCopy(String of, List<List<String>> rows) {
    }

    /** One way the statement may have behaved: its effect, and its update count when the simulation gives it. */
    record Candidate(StateDelta delta, Long count) {
    }

    /** Candidates beyond this many per statement are not tried (2^4 subsets of re-checked rows). */
    private static final int MAX_CANDIDATES = 16;
    private static final Pattern TARGET = Pattern.compile(
            "^\\s*(?:UPDATE|DELETE\\s+FROM|MERGE\\s+INTO|INSERT\\s+INTO)\\s+(\\w+)", Pattern.CASE_INSENSITIVE);

    private final TestCase testCase;
    private final Simulation simulation;
    private final boolean joinedRowsKept;
    private final Deviation.MergeLocks mergeLocks;

    /**
     * @param joinedRowsKept whether the re-check of a chosen row uses the rows a pulled-up subquery joined to it
     *                       ({@link JoinedSublinks}, PostgreSQL's EvalPlanQual) rather than running its subqueries again on
     *                       the snapshot
     * @param mergeLocks     which target rows a MERGE locks, and so re-checks
     */
    StatementParts(TestCase testCase, Simulation simulation, boolean joinedRowsKept, Deviation.MergeLocks mergeLocks) {
        this.testCase = testCase;
        this.simulation = simulation;
        this.joinedRowsKept = joinedRowsKept;
        this.mergeLocks = mergeLocks;
    }

    /**
     * The ways {@code ref} may have changed the data, given the data it read at its start
     * ({@code snapshot}) and the newest committed data when it completed ({@code newest}), each with
     * its own transaction's writes; empty when none is possible (it fails, or breaks a key).
     */
    List<Candidate> effects(StmtRef ref, DbState snapshot, DbState newest) throws SQLException, SetupFailedException {
        String sql = testCase.stmt(ref).sql();
        StmtKind kind = testCase.stmt(ref).kind();
        boolean merge = sql.trim().toUpperCase(Locale.ROOT).startsWith("MERGE");
        List<Candidate> candidates = switch (kind) {
            case UPDATE, DELETE -> rechecked(ref, snapshot, newest, false);
            case UPSERT -> merge ? rechecked(ref, snapshot, newest, true) : arbitratedOnNewest(ref, snapshot, newest);
            case INSERT -> insertedFromSnapshot(ref, snapshot);
            default -> List.of();
        };
        List<Candidate> keyed = new ArrayList<>();
        for (Candidate c : candidates) {
            // unique keys are checked against the newest committed data (the statement would have failed)
            Optional<DbState> after = c.delta().applyTo(newest);
            if (after.isPresent() && simulation.keysHold(after.get())) {
                keyed.add(c);
            }
        }
        return keyed;
    }

    private List<Candidate> insertedFromSnapshot(StmtRef ref, DbState snapshot) throws SQLException, SetupFailedException {
        Optional<StateDelta> d = simulation.effectOn(snapshot, ref, false);
        if (d.isEmpty()) {
            d = insertedIntoAnEmptyCopy(ref, snapshot);
        }
        return d.map(delta -> List.of(new Candidate(delta, simulation.count(ref)))).orElse(List.of());
    }

    private static final Pattern INSERT_SELECT_WITH_COLUMNS = Pattern.compile("^\\s*INSERT\\s+INTO\\s+\\w+\\s*\\([^)]*\\)\\s*SELECT\\b",
            Pattern.CASE_INSENSITIVE);

    /**
     * The rows an {@code INSERT … SELECT} with a column list reads from its snapshot, inserted into an empty copy of its
     * table: where the simulation keeps the keys (an engine whose keys cannot be dropped), the statement fails on the
     * snapshot when it inserts a key the snapshot still holds and the newest data no longer does, though the engine reads
     * the SELECT as of the statement's start and checks the new rows' keys against the newest committed rows after its wait
     * ({@link #effects} checks them so). Campaign mariadb-RC-s66-i49: an INSERT … SELECT of a table's rows into that table
     * waited on the key another transaction had deleted, and inserted it once that transaction committed. Empty for other
     * statements, or when the copy's insert fails.
     */
    private Optional<StateDelta> insertedIntoAnEmptyCopy(StmtRef ref, DbState snapshot) throws SQLException, SetupFailedException {
        String sql = testCase.stmt(ref).sql();
        if (testCase.stmt(ref).kind() != StmtKind.INSERT || !INSERT_SELECT_WITH_COLUMNS.matcher(sql).find()) {
            return Optional.empty();
        }
        return simulation.effectOnEmptyCopy(snapshot, ref, target(ref));
    }

    private List<Candidate> arbitratedOnNewest(StmtRef ref, DbState snapshot, DbState newest) throws SQLException, SetupFailedException {
        String target = target(ref);
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        snapshot.tables().forEach((t, rows) -> tables.put(t, t.equalsIgnoreCase(target) ? newest.tables().getOrDefault(t, List.of()) : rows));
        Optional<StateDelta> d = simulation.effectOn(new DbState(tables), ref, true);
        return d.map(delta -> List.of(new Candidate(delta, simulation.count(ref)))).orElse(List.of());
    }

    private List<Candidate> rechecked(StmtRef ref, DbState snapshot, DbState newest, boolean merge) throws SQLException, SetupFailedException {
        String target = target(ref);
        Map<String, List<String>> newestById = byId(newest, target);
        Set<String> changedMeanwhile = new HashSet<>();
        byId(snapshot, target).forEach((id, row) -> {
            if (!row.equals(newestById.get(id))) {
                changedMeanwhile.add(id);
            }
        });
        if (merge && mergeLocks == Deviation.MergeLocks.MATCHED_ROWS) {
            // the rows it re-checks are known before it acts, so its actions run only on the re-check view: on the snapshot's
            // versions of those rows they may fail where the newest pass (a CHECK, h2-RC-s53-i8906)
            Optional<Set<String>> matched = matchedMeanwhileChanged(ref, snapshot, target, changedMeanwhile);
            if (matched.isPresent()) {
                if (matched.get().isEmpty()) {
                    return simulation.effectOn(snapshot, ref, false).map(delta -> List.of(new Candidate(delta, simulation.count(ref)))).orElse(List.of());
                }
                DbState view = recheckView(snapshot, newestById, target, matched.get());
                Optional<String> paired = pairedAsOnTheSnapshot(ref, snapshot, target, matched.get());
                Optional<StateDelta> d = paired.isPresent() ? simulation.effectOfRewritten(view, ref, paired.get()) : simulation.effectOn(view, ref, false);
                return d.map(delta -> List.of(new Candidate(delta, simulation.count(ref)))).orElse(List.of());
            }
        }
        Optional<StateDelta> onSnapshot = simulation.effectOn(snapshot, ref, false);
        if (onSnapshot.isEmpty()) {
            return merge ? List.of() : recheckedWhereTheSnapshotFails(ref, snapshot, newestById, target, changedMeanwhile);
        }
        StateDelta d = onSnapshot.get();
        Long count = simulation.count(ref);
        Set<String> changedHere = new HashSet<>(rowIds(d));
        Set<String> mustRecheck = new HashSet<>(changedHere);
        mustRecheck.retainAll(changedMeanwhile);
        List<String> maybeChosen = changedMeanwhile.stream().filter(id -> !changedHere.contains(id)).sorted().toList();
        // rows the statement processed without changing their values: its count less the rows it changed or inserted
        long unchangedButProcessed = count == null ? 0 : count - rowsChangedOrInserted(d);
        List<Candidate> out = new ArrayList<>();
        for (Set<String> extra : subsets(maybeChosen, (int) Math.max(0, Math.min(unchangedButProcessed, maybeChosen.size())))) {
            Set<String> chosen = new HashSet<>(mustRecheck);
            chosen.addAll(extra);
            if (chosen.isEmpty()) {
                out.add(new Candidate(d, count));
                continue;
            }
            // A MERGE runs again on the re-check view: its count there is the statement's. An UPDATE or DELETE counts the
            // rows it processed on the snapshot, less the chosen ones (all of which it processed there), plus those of the
            // chosen rows it processed on their newest versions; without the snapshot count, none is known.
            List<Candidate> onNewest = merge
                    ? simulation.effectOn(recheckView(snapshot, newestById, target, chosen), ref, false)
                            .map(delta -> List.of(new Candidate(delta, simulation.count(ref)))).orElse(List.of())
                    : recheckedRows(ref, snapshot, d, newestById, target, chosen).stream()
                            .map(r -> new Candidate(r.delta(), count == null || r.count() == null ? null : count - chosen.size() + r.count()))
                            .toList();
            out.addAll(onNewest);
            if (out.size() >= MAX_CANDIDATES) {
                break;
            }
        }
        return out;
    }

    /**
     * Of the rows of {@code target} that changed meanwhile, those the MERGE's ON join matched on the snapshot: the statement
     * run on a copy of the target holding only their snapshot versions, every WHEN clause replaced by one that deletes the
     * matched row. Empty when the statement cannot be rewritten so or the probe fails.
     */
    private Optional<Set<String>> matchedMeanwhileChanged(StmtRef ref, DbState snapshot, String target, Set<String> changedMeanwhile)
            throws SQLException, SetupFailedException {
        List<List<String>> rows = byId(snapshot, target).entrySet().stream().filter(e -> changedMeanwhile.contains(e.getKey()))
                .sorted(Map.Entry.comparingByKey()).map(Map.Entry::getValue).toList();
        if (rows.isEmpty()) {
            return Optional.of(Set.of());
        }
        String copy = target + "_txfuzz_recheck";
        Optional<String> probe = matchedRowsProbe(testCase.stmt(ref).sql(), copy);
        if (probe.isEmpty()) {
            return Optional.empty();
        }
        return simulation.effectOnCopy(snapshot, ref, target, copy, probe.get(), rows, Map.of()).map(StatementParts::rowIds);
    }

    private static final Pattern MERGE_USING_TABLE = Pattern.compile(
            "^\\s*MERGE\\s+INTO\\s+(\\w+)(?:\\s+(?:AS\\s+)?(\\w+))?\\s+USING\\s+(\\w+)(?:\\s+(?:AS\\s+)?(\\w+))?\\s+ON\\s+",
            Pattern.CASE_INSENSITIVE);

    /**
     * The MERGE with its ON join limited so that each re-checked target row (its newest version in the re-check view) can match
     * only the source rows its snapshot version matched: H2 joins target and source on the statement's snapshot, then locks each
     * matched target row and tests the ON condition again on its newest version with the same source row, so a row changed
     * meanwhile never matches a source row it did not match before (campaign h2-RC-s60-i2761: the newest key of a moved row equal
     * to another source row's). The pairs are found by a probe per re-checked row: the source rows that row's snapshot version
     * joins, deleted from a copy of the source. Empty where the MERGE is not {@code MERGE INTO t [a] USING s [b] ON ... WHEN},
     * its source is its target, or a probe fails: the MERGE then runs unlimited on the re-check view.
     */
    private Optional<String> pairedAsOnTheSnapshot(StmtRef ref, DbState snapshot, String target, Set<String> rechecked)
            throws SQLException, SetupFailedException {
        String sql = testCase.stmt(ref).sql();
        Matcher m = MERGE_USING_TABLE.matcher(sql);
        if (!m.find() || m.group(3).equalsIgnoreCase(m.group(1))) {
            return Optional.empty();
        }
        int when = firstOutsideParentheses(sql, WHEN_CLAUSE.matcher(sql), m.end());
        if (when < 0) {
            return Optional.empty();
        }
        String targetName = m.group(2) != null ? m.group(2) : m.group(1);
        String source = m.group(3);
        String sourceName = m.group(4) != null ? m.group(4) : source;
        String on = sql.substring(m.end(), when).trim();
        String sourceTable = tableName(snapshot, source);
        String sourceCopy = source + "_txfuzz_source";
        String snapshotRow = target + "_txfuzz_snapshot_row";
        Map<String, List<String>> snapshotById = byId(snapshot, target);
        List<List<String>> sourceRows = snapshot.tables().getOrDefault(sourceTable, List.of());
        String probe = "DELETE FROM " + sourceCopy + " AS " + sourceName + " WHERE EXISTS (SELECT 1 FROM " + snapshotRow + " AS " + targetName
                + " WHERE " + on + ")";
        String rowId = DeviationExplainer.ROW_ID;
        List<String> pairs = new ArrayList<>();
        for (String id : rechecked.stream().sorted().toList()) {
            Optional<StateDelta> joined = simulation.effectOnCopy(snapshot, ref, sourceTable, sourceCopy, probe, sourceRows,
                    Map.of(snapshotRow, new JoinedCopy(target, List.of(snapshotById.get(id)))));
            if (joined.isEmpty()) {
                return Optional.empty();
            }
            Set<String> sources = rowIds(joined.get());
            if (!sources.isEmpty()) {
                pairs.add("(" + targetName + "." + rowId + " = " + id + " AND " + sourceName + "." + rowId + " IN (" + String.join(", ", sources.stream().sorted().toList()) + "))");
            }
        }
        String notRechecked = targetName + "." + rowId + " NOT IN (" + String.join(", ", rechecked.stream().sorted().toList()) + ")";
        return Optional.of(sql.substring(0, m.end()) + "(" + on + ") AND (" + notRechecked + (pairs.isEmpty() ? "" : " OR " + String.join(" OR ", pairs))
                + ") " + sql.substring(when));
    }

    private static final Pattern MERGE_TARGET = Pattern.compile("^(\\s*MERGE\\s+INTO\\s+)(\\w+)(\\s+(?:AS\\s+)?(\\w+))?", Pattern.CASE_INSENSITIVE);
    private static final Pattern WHEN_CLAUSE = Pattern.compile("\\bWHEN\\s+(?:NOT\\s+)?MATCHED\\b", Pattern.CASE_INSENSITIVE);

    /**
     * {@code MERGE INTO t ... USING ... ON ...} changing {@code copy} under t's name (or its alias), its WHEN clauses replaced by
     * {@code WHEN MATCHED THEN DELETE}, so it deletes exactly the rows its join matches; empty if not of that form.
     */
    static Optional<String> matchedRowsProbe(String sql, String copy) {
        return onCopy(MERGE_TARGET, sql, copy).flatMap(renamed -> {
            int when = firstOutsideParentheses(renamed, WHEN_CLAUSE.matcher(renamed), 0);
            return when < 0 ? Optional.empty() : Optional.of(renamed.substring(0, when) + "WHEN MATCHED THEN DELETE");
        });
    }

    /** Where {@code m} first matches at or past {@code from}, outside parentheses and quotes; -1 if nowhere. */
    private static int firstOutsideParentheses(String sql, Matcher m, int from) {
        int depth = 0;
        char quote = 0;
        int i = 0;
        while (m.find(from)) {
            for (; i < m.start(); i++) {
                char c = sql.charAt(i);
                if (quote != 0) {
                    quote = c == quote ? 0 : quote;
                } else if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                }
            }
            if (depth == 0 && quote == 0) {
                return m.start();
            }
            from = m.end();
        }
        return -1;
    }

    /**
     * An UPDATE's or DELETE's effect when the chosen rows are re-checked on their newest version: its
     * snapshot effect on the other rows, plus the statement run on a copy of the target holding only
     * the chosen rows' newest versions (those deleted meanwhile are skipped), its subqueries and joins
     * still reading the snapshot — the re-check replaces the target row only.
     */
    private List<Candidate> recheckedRows(StmtRef ref, DbState snapshot, StateDelta onSnapshot, Map<String, List<String>> newestById,
                                          String target, Set<String> chosen) throws SQLException, SetupFailedException {
        String copy = target + "_txfuzz_recheck";
        Optional<String> sql = onCopy(testCase.stmt(ref).sql(), copy);
        if (sql.isEmpty()) {
            return List.of();
        }
        Set<String> others = new HashSet<>(rowIds(onSnapshot));
        others.removeAll(chosen);
        StateDelta rest = onSnapshot.restrictedTo(others);
        Optional<JoinedSublinks.Found> sublinks = joinedRowsKept ? JoinedSublinks.of(testCase.stmt(ref).sql()) : Optional.empty();
        if (sublinks.isPresent()) {
            Optional<List<Candidate>> perRow = recheckedOnJoinedRows(ref, snapshot, newestById, target, copy, chosen, sublinks.get());
            if (perRow.isPresent()) {
                return perRow.get().stream().map(c -> new Candidate(rest.and(c.delta()), c.count())).toList();
            }
        }
        List<List<String>> rows = chosen.stream().sorted().filter(newestById::containsKey).map(newestById::get).toList();
        Optional<StateDelta> onRows = rows.isEmpty() ? Optional.of(new StateDelta(Map.of(), Map.of()))
                : simulation.effectOnCopy(snapshot, ref, target, copy, sql.get(), rows, Map.of());
        if (onRows.isEmpty()) {
            return List.of();
        }
        Long processed = rows.isEmpty() ? Long.valueOf(0) : simulation.count(ref);
        return List.of(new Candidate(rest.and(onRows.get()), processed));
    }

    /**
     * An UPDATE or DELETE that fails on the snapshot's version of a row changed meanwhile may pass on its newest version, the
     * one it re-checks and writes (h2-RC-s60-i15826: {@code SET c0 = t0.c1} where the snapshot's c1 is NULL and the newest
     * 1). Its effect then is the statement on the rows not changed meanwhile as the snapshot has them, and on the newest
     * versions of the rows changed meanwhile that its WHERE chose on the snapshot (found by a probe: the WHERE as a DELETE
     * on a copy of their snapshot versions); each part's subqueries read the snapshot. None where either part fails.
     */
    private List<Candidate> recheckedWhereTheSnapshotFails(StmtRef ref, DbState snapshot, Map<String, List<String>> newestById,
                                                          String target, Set<String> changedMeanwhile) throws SQLException, SetupFailedException {
        String copy = target + "_txfuzz_recheck";
        String sql = testCase.stmt(ref).sql();
        Optional<String> onCopy = onCopy(sql, copy);
        Optional<String> probe = chosenRowsProbe(sql, copy);
        if (changedMeanwhile.isEmpty() || onCopy.isEmpty() || probe.isEmpty()) {
            return List.of();
        }
        Map<String, List<String>> snapshotById = byId(snapshot, target);
        List<List<String>> changed = new ArrayList<>();
        List<List<String>> unchanged = new ArrayList<>();
        snapshotById.keySet().stream().sorted().forEach(id -> (changedMeanwhile.contains(id) ? changed : unchanged).add(snapshotById.get(id)));
        Optional<StateDelta> chosenOnSnapshot = simulation.effectOnCopy(snapshot, ref, target, copy, probe.get(), changed, Map.of());
        if (chosenOnSnapshot.isEmpty()) {
            return List.of();
        }
        Optional<StateDelta> rest = unchanged.isEmpty() ? Optional.of(new StateDelta(Map.of(), Map.of()))
                : simulation.effectOnCopy(snapshot, ref, target, copy, onCopy.get(), unchanged, Map.of());
        Long restCount = unchanged.isEmpty() ? Long.valueOf(0) : simulation.count(ref);
        if (rest.isEmpty()) {
            return List.of();
        }
        List<List<String>> rechecked = rowIds(chosenOnSnapshot.get()).stream().sorted().filter(newestById::containsKey).map(newestById::get).toList();
        Optional<StateDelta> onNewest = rechecked.isEmpty() ? Optional.of(new StateDelta(Map.of(), Map.of()))
                : simulation.effectOnCopy(snapshot, ref, target, copy, onCopy.get(), rechecked, Map.of());
        Long recheckedCount = rechecked.isEmpty() ? Long.valueOf(0) : simulation.count(ref);
        if (onNewest.isEmpty()) {
            return List.of();
        }
        Long count = restCount == null || recheckedCount == null ? null : restCount + recheckedCount;
        return List.of(new Candidate(rest.get().and(onNewest.get()), count));
    }

    private static final Pattern WHERE_CLAUSE = Pattern.compile("\\bWHERE\\b", Pattern.CASE_INSENSITIVE);

    /**
     * {@code DELETE FROM copy AS t} with the WHERE of {@code UPDATE t ...} or {@code DELETE FROM t ...} (none: every row), so it
     * deletes exactly the rows the statement chooses; empty if not of that form.
     */
    static Optional<String> chosenRowsProbe(String sql, String copy) {
        return onCopy(sql, copy).map(renamed -> {
            Matcher m = UPDATE_OR_DELETE_TARGET.matcher(renamed);
            m.find(); // the renamed statement starts UPDATE|DELETE FROM copy AS alias
            String where = renamed.substring(withoutWhere(renamed).orElseThrow().length()).strip();
            return "DELETE FROM " + copy + " AS " + m.group(4) + (where.isEmpty() ? "" : " " + where);
        });
    }

    /** {@code sql}, an UPDATE or DELETE, without its WHERE (found outside parentheses and quotes): it takes every row. */
    static Optional<String> withoutWhere(String sql) {
        if (!UPDATE_OR_DELETE_TARGET.matcher(sql).find()) {
            return Optional.empty();
        }
        int where = firstOutsideParentheses(sql, WHERE_CLAUSE.matcher(sql), 0);
        return Optional.of(where < 0 ? sql : sql.substring(0, where).stripTrailing());
    }

    /** Assignments of joined rows beyond this many per chosen row are not tried. */
    private static final int MAX_JOINED_ASSIGNMENTS = 16;

    /**
     * The chosen rows re-checked as PostgreSQL's EvalPlanQual does where subqueries became joins ({@link JoinedSublinks}):
     * each chosen row's newest version is tested against the row each semi-join joined to its snapshot version (the first
     * match the plan found: any row that matched it there, since the plan's order is not known) and against no row for an
     * anti-join. Each candidate is the chosen rows' effect (without the statement's other rows) and the chosen rows it
     * processed. Empty when a chosen row's snapshot version matches with no single joined row (the model does not apply).
     */
    private Optional<List<Candidate>> recheckedOnJoinedRows(StmtRef ref, DbState snapshot, Map<String, List<String>> newestById, String target,
                                                            String copy, Set<String> chosen, JoinedSublinks.Found found)
            throws SQLException, SetupFailedException {
        List<String> copies = new ArrayList<>();
        for (int i = 0; i < found.sublinks().size(); i++) {
            copies.add(found.sublinks().get(i).table() + "_txfuzz_joined" + i);
        }
        Optional<String> sql = onCopy(found.renamer().rename(copies), copy);
        if (sql.isEmpty()) {
            return Optional.empty();
        }
        Map<String, List<String>> snapshotById = byId(snapshot, target);
        List<Candidate> combined = List.of(new Candidate(new StateDelta(Map.of(), Map.of()), 0L));
        for (String id : chosen.stream().sorted().toList()) {
            List<Candidate> outcomes = new ArrayList<>();
            if (!newestById.containsKey(id)) {
                outcomes.add(new Candidate(new StateDelta(Map.of(), Map.of()), 0L)); // deleted meanwhile: skipped
            } else {
                for (Map<String, JoinedCopy> joined : assignments(found.sublinks(), copies, snapshot)) {
                    Optional<StateDelta> onOld = simulation.effectOnCopy(snapshot, ref, target, copy, sql.get(), List.of(snapshotById.get(id)), joined);
                    if (onOld.isEmpty() || !Long.valueOf(1).equals(simulation.count(ref))) {
                        continue; // these rows were not joined to the row's snapshot version
                    }
                    Optional<StateDelta> onNewest = simulation.effectOnCopy(snapshot, ref, target, copy, sql.get(), List.of(newestById.get(id)), joined);
                    if (onNewest.isPresent()) {
                        Candidate c = new Candidate(onNewest.get(), simulation.count(ref));
                        if (!outcomes.contains(c)) {
                            outcomes.add(c);
                        }
                    }
                }
                if (outcomes.isEmpty()) {
                    return Optional.empty();
                }
            }
            List<Candidate> next = new ArrayList<>();
            for (Candidate sofar : combined) {
                for (Candidate o : outcomes) {
                    if (next.size() < MAX_CANDIDATES) {
                        next.add(new Candidate(sofar.delta().and(o.delta()),
                                sofar.count() == null || o.count() == null ? null : sofar.count() + o.count()));
                    }
                }
            }
            combined = next;
        }
        return Optional.of(combined);
    }

    /** Each way of choosing the rows the subqueries joined: one snapshot row of a semi-join's table, none for an anti-join. */
    private static List<Map<String, JoinedCopy>> assignments(List<JoinedSublinks.Sublink> sublinks, List<String> copies, DbState snapshot) {
        List<Map<String, JoinedCopy>> out = new ArrayList<>();
        out.add(Map.of());
        for (int i = 0; i < sublinks.size(); i++) {
            JoinedSublinks.Sublink s = sublinks.get(i);
            List<List<List<String>>> choices = new ArrayList<>();
            if (s.anti()) {
                choices.add(List.of());
            } else {
                snapshot.tables().forEach((t, rows) -> {
                    if (t.equalsIgnoreCase(s.table())) {
                        rows.forEach(r -> choices.add(List.of(r)));
                    }
                });
            }
            List<Map<String, JoinedCopy>> next = new ArrayList<>();
            for (Map<String, JoinedCopy> sofar : out) {
                for (List<List<String>> rows : choices) {
                    if (next.size() < MAX_JOINED_ASSIGNMENTS) {
                        Map<String, JoinedCopy> more = new LinkedHashMap<>(sofar);
                        more.put(copies.get(i), new JoinedCopy(tableName(snapshot, s.table()), rows));
                        next.add(more);
                    }
                }
            }
            out = next;
        }
        return out;
    }

    private static String tableName(DbState state, String table) {
        return state.tables().keySet().stream().filter(t -> t.equalsIgnoreCase(table)).findFirst().orElse(table);
    }

    private static final Pattern UPDATE_OR_DELETE_TARGET = Pattern.compile(
            "^(\\s*(?:UPDATE|DELETE\\s+FROM)\\s+)(\\w+)(\\s+(?:AS\\s+)?(\\w+))?", Pattern.CASE_INSENSITIVE);
    private static final Set<String> NOT_AN_ALIAS = Set.of("SET", "WHERE", "RETURNING", "USING");

    /** {@code UPDATE t ...} / {@code DELETE FROM t ...} changing {@code copy} under t's name (or its alias); empty if not of that form. */
    static Optional<String> onCopy(String sql, String copy) {
        return onCopy(UPDATE_OR_DELETE_TARGET, sql, copy);
    }

    /** {@code sql}, whose target {@code target} finds (its group 2, an alias in group 4), changing {@code copy} under t's name or alias. */
    private static Optional<String> onCopy(Pattern target, String sql, String copy) {
        Matcher m = target.matcher(sql);
        if (!m.find()) {
            return Optional.empty();
        }
        boolean aliased = m.group(4) != null && !NOT_AN_ALIAS.contains(m.group(4).toUpperCase(Locale.ROOT));
        String alias = aliased ? m.group(4) : m.group(2);
        return Optional.of(m.group(1) + copy + " AS " + alias + sql.substring(aliased ? m.end() : m.end(2)));
    }

    /** The snapshot with each chosen row of {@code target} in its newest version, or gone when deleted meanwhile. */
    private static DbState recheckView(DbState snapshot, Map<String, List<String>> newestById, String target, Set<String> chosen) {
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        snapshot.tables().forEach((t, rows) -> {
            if (!t.equalsIgnoreCase(target)) {
                tables.put(t, rows);
                return;
            }
            List<List<String>> view = new ArrayList<>();
            for (List<String> row : rows) {
                String id = row.get(row.size() - 1);
                if (!chosen.contains(id)) {
                    view.add(row);
                } else if (newestById.containsKey(id)) {
                    view.add(newestById.get(id));
                }
            }
            tables.put(t, view);
        });
        return new DbState(tables);
    }

    /** Rows a delta changed (removed, with or without a new version) plus rows it inserted (identities not removed). */
    private static long rowsChangedOrInserted(StateDelta d) {
        Set<String> removed = rowIds(d);
        long inserted = d.added().values().stream().flatMap(List::stream).filter(r -> !removed.contains(r.get(r.size() - 1))).count();
        return removed.size() + inserted;
    }

    private static Set<String> rowIds(StateDelta d) {
        Set<String> ids = new HashSet<>();
        d.removed().values().forEach(rows -> rows.forEach(r -> ids.add(r.get(r.size() - 1))));
        return ids;
    }

    /** Subsets of {@code items} of at most {@code max} elements, the empty one first. */
    private static List<Set<String>> subsets(List<String> items, int max) {
        List<Set<String>> out = new ArrayList<>();
        out.add(Set.of());
        for (String item : items) {
            List<Set<String>> more = new ArrayList<>();
            for (Set<String> s : out) {
                if (s.size() < max) {
                    Set<String> bigger = new HashSet<>(s);
                    bigger.add(item);
                    more.add(bigger);
                }
            }
            out.addAll(more);
            if (out.size() >= MAX_CANDIDATES) {
                return out.subList(0, MAX_CANDIDATES);
            }
        }
        return out;
    }

    private static Map<String, List<String>> byId(DbState state, String table) {
        Map<String, List<String>> out = new HashMap<>();
        state.tables().forEach((t, rows) -> {
            if (t.equalsIgnoreCase(table)) {
                rows.forEach(r -> out.put(r.get(r.size() - 1), r));
            }
        });
        return out;
    }

    /** The table the statement writes. */
    private String target(StmtRef ref) {
        Matcher m = TARGET.matcher(testCase.stmt(ref).sql());
        return m.find() ? m.group(1) : "";
    }
}
