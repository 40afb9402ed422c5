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
 *     the rows that changed meanwhile up to that many is a candidate.</li>
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

        /** The update count the last simulation of {@code ref} gave. */
        Long count(StmtRef ref);

        /** Whether {@code state} satisfies the case's keys. */
        boolean keysHold(DbState state) throws SQLException, SetupFailedException;

        /**
         * What {@code sql} — {@code ref} rewritten to change {@code copy}, an empty copy of {@code table}
         * holding only {@code rows} — removes from and adds to those rows, every other read seeing {@code view};
         * {@link #count} then gives the rows of the copy it processed.
         */
        Optional<StateDelta> effectOnCopy(DbState view, StmtRef ref, String table, String copy, String sql, List<List<String>> rows)
                throws SQLException, SetupFailedException;
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

    StatementParts(TestCase testCase, Simulation simulation) {
        this.testCase = testCase;
        this.simulation = simulation;
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
        return d.map(delta -> List.of(new Candidate(delta, simulation.count(ref)))).orElse(List.of());
    }

    private List<Candidate> arbitratedOnNewest(StmtRef ref, DbState snapshot, DbState newest) throws SQLException, SetupFailedException {
        String target = target(ref);
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        snapshot.tables().forEach((t, rows) -> tables.put(t, t.equalsIgnoreCase(target) ? newest.tables().getOrDefault(t, List.of()) : rows));
        Optional<StateDelta> d = simulation.effectOn(new DbState(tables), ref, true);
        return d.map(delta -> List.of(new Candidate(delta, simulation.count(ref)))).orElse(List.of());
    }

    private List<Candidate> rechecked(StmtRef ref, DbState snapshot, DbState newest, boolean merge) throws SQLException, SetupFailedException {
        Optional<StateDelta> onSnapshot = simulation.effectOn(snapshot, ref, false);
        if (onSnapshot.isEmpty()) {
            return List.of();
        }
        StateDelta d = onSnapshot.get();
        Long count = simulation.count(ref);
        String target = target(ref);
        Map<String, List<String>> newestById = byId(newest, target);
        Set<String> changedMeanwhile = new HashSet<>();
        byId(snapshot, target).forEach((id, row) -> {
            if (!row.equals(newestById.get(id))) {
                changedMeanwhile.add(id);
            }
        });
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
            Optional<Candidate> onNewest = merge
                    ? simulation.effectOn(recheckView(snapshot, newestById, target, chosen), ref, false).map(delta -> new Candidate(delta, simulation.count(ref)))
                    : recheckedRows(ref, snapshot, d, newestById, target, chosen)
                            .map(r -> new Candidate(r.delta(), count == null || r.count() == null ? null : count - chosen.size() + r.count()));
            onNewest.ifPresent(out::add);
            if (out.size() >= MAX_CANDIDATES) {
                break;
            }
        }
        return out;
    }

    /**
     * An UPDATE's or DELETE's effect when the chosen rows are re-checked on their newest version: its
     * snapshot effect on the other rows, plus the statement run on a copy of the target holding only
     * the chosen rows' newest versions (those deleted meanwhile are skipped), its subqueries and joins
     * still reading the snapshot — the re-check replaces the target row only.
     */
    private Optional<Candidate> recheckedRows(StmtRef ref, DbState snapshot, StateDelta onSnapshot, Map<String, List<String>> newestById,
                                              String target, Set<String> chosen) throws SQLException, SetupFailedException {
        String copy = target + "_txfuzz_recheck";
        Optional<String> sql = onCopy(testCase.stmt(ref).sql(), copy);
        if (sql.isEmpty()) {
            return Optional.empty();
        }
        List<List<String>> rows = chosen.stream().sorted().filter(newestById::containsKey).map(newestById::get).toList();
        Optional<StateDelta> onRows = rows.isEmpty() ? Optional.of(new StateDelta(Map.of(), Map.of()))
                : simulation.effectOnCopy(snapshot, ref, target, copy, sql.get(), rows);
        if (onRows.isEmpty()) {
            return Optional.empty();
        }
        Long processed = rows.isEmpty() ? Long.valueOf(0) : simulation.count(ref);
        Set<String> others = new HashSet<>(rowIds(onSnapshot));
        others.removeAll(chosen);
        StateDelta rest = onSnapshot.restrictedTo(others);
        Map<String, List<List<String>>> removed = new LinkedHashMap<>(rest.removed());
        Map<String, List<List<String>>> added = new LinkedHashMap<>(rest.added());
        onRows.get().removed().forEach((t, r) -> removed.merge(t, r, StatementParts::concat));
        onRows.get().added().forEach((t, r) -> added.merge(t, r, StatementParts::concat));
        return Optional.of(new Candidate(new StateDelta(removed, added), processed));
    }

    private static List<List<String>> concat(List<List<String>> a, List<List<String>> b) {
        List<List<String>> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static final Pattern UPDATE_OR_DELETE_TARGET = Pattern.compile(
            "^(\\s*(?:UPDATE|DELETE\\s+FROM)\\s+)(\\w+)(\\s+(?:AS\\s+)?(\\w+))?", Pattern.CASE_INSENSITIVE);
    private static final Set<String> NOT_AN_ALIAS = Set.of("SET", "WHERE", "RETURNING", "USING");

    /** {@code UPDATE t ...} / {@code DELETE FROM t ...} changing {@code copy} under t's name (or its alias); empty if not of that form. */
    static Optional<String> onCopy(String sql, String copy) {
        Matcher m = UPDATE_OR_DELETE_TARGET.matcher(sql);
        if (!m.find()) {
            return Optional.empty();
        }
        String alias = m.group(4) == null || NOT_AN_ALIAS.contains(m.group(4).toUpperCase(Locale.ROOT)) ? m.group(2) : m.group(4);
        int end = m.group(4) == null || NOT_AN_ALIAS.contains(m.group(4).toUpperCase(Locale.ROOT)) ? m.end(2) : m.end();
        return Optional.of(m.group(1) + copy + " AS " + alias + sql.substring(end));
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
