package txfuzz.reduce;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.TrackedGroups;
import txfuzz.model.Txn;
import txfuzz.reduce.Sql.Token;

/**
 * The inverse of the isolation oracle's row tracking (gen's Instrumentation): the program a user
 * would write, derived from an instrumented case's own text — so it works on a reduced case too,
 * which no generator seed describes. It drops the companion statements (post-reads, companion and
 * version-set reads), the {@code rid}/{@code wl} columns of CREATE TABLE and of the setup's rows,
 * the (rid, wl) items a tracked SELECT leads with, the tag a write appends, an INSERT's rid/wl
 * values, {@code RETURNING rid, wl}, and turns a tag-UPDATE with its delete-by-tag back into the
 * DELETE with the tag-UPDATE's WHERE.
 *
 * <p>Every group of an instrumented transaction (a statement with its companions, as
 * {@code InstrumentationSelfCheck} groups them) gives exactly one plain statement, so the two runs
 * can be compared statement for statement. BEGIN/COMMIT/ROLLBACK stay as they are: the tracked
 * case runs every transaction explicitly, and so does its plain form. Where a statement's tracking
 * cannot be taken out by these rules (an aggregate or UNION, whose tracked form reads its rows
 * instead and no longer holds the plain select list; text of another shape), the answer is
 * {@link Stripped.CannotStrip} naming the statement, never a guess.
 */
public final class TrackingStripper {
    private static final String RID = "rid";
    private static final String WL = "wl";
    /** Where a SET list ends, at its own depth. */
    private static final Set<String> SET_LIST_ENDS = Set.of("WHERE", "WHEN", "RETURNING", "FROM");

    private TrackingStripper() {
    }

    /** Why a statement cannot be stripped: control flow inside this class only. */
    private static final class Refused extends Exception {
        Refused(String why) {
            super(why, null, false, false);
        }
    }

    /** The plain program of {@code instrumented}, or why there is none. */
    public static Stripped strip(TestCase instrumented) {
        if (!tracked(instrumented)) {
            return new Stripped.CannotStrip("the case carries no row tracking");
        }
        try {
            Map<String, List<String>> columns = new HashMap<>();
            List<String> setup = setup(instrumented.setup(), columns);
            List<Txn> txns = new ArrayList<>();
            Map<StmtRef, Boolean> kept = new HashMap<>();
            Map<StmtRef, StmtRef> origin = new HashMap<>();
            for (Txn t : instrumented.transactions()) {
                txns.add(transaction(t, columns, kept, origin));
            }
            List<Integer> order = new ArrayList<>();
            for (StmtRef ref : instrumented.submittedOrder()) {
                if (kept.getOrDefault(ref, false)) {
                    order.add(ref.txn());
                }
            }
            return new Stripped.Plain(new TestCase(instrumented.formatVersion(), instrumented.dbms(), instrumented.seed(), instrumented.iteration(),
                    instrumented.isolation(), instrumented.mode(), instrumented.execution(), instrumented.tables(), setup, txns, order, null,
                    instrumented.engine(), instrumented.source()), origin); // an imported case's plain form keeps where it came from
        } catch (Refused e) {
            return new Stripped.CannotStrip(e.getMessage());
        } catch (IllegalArgumentException e) {
            return new Stripped.CannotStrip("the stripped statements do not form a case: " + e.getMessage());
        } catch (RuntimeException e) {
            // hand-edited text of a shape the row tracking never gives (a tracking without its tag, a clause cut short)
            return new Stripped.CannotStrip("its text is of a shape txfuzz's row tracking never gives (" + e + ")");
        }
    }

    /** Whether {@code c} carries row tracking (tracked statements, or rid/wl in its setup). */
    public static boolean tracked(TestCase c) {
        boolean statements = c.transactions().stream().flatMap(t -> t.statements().stream()).anyMatch(s -> s.tracking() != null);
        return statements || c.setup().stream().anyMatch(TrackingStripper::namesTracking);
    }

    // ------------------------------------------------------------------ setup

    /** The setup without row tracking; {@code columns} gets each created table's columns (lower-case name → columns, as defined). */
    private static List<String> setup(List<String> setup, Map<String, List<String>> columns) throws Refused {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < setup.size(); k++) {
            String sql = setup.get(k);
            int number = k + 1;
            String plain = sql;
            String created = SchemaText.createdTable(sql);
            Optional<SchemaText.Insert> insert = SchemaText.insert(sql);
            if (created != null) {
                columns.put(created.toLowerCase(Locale.ROOT), SchemaText.columns(sql));
                for (String c : List.of(RID, WL)) {
                    if (SchemaText.columns(plain).stream().anyMatch(c::equalsIgnoreCase)) {
                        plain = SchemaText.dropColumnDef(plain, c).orElseThrow(() -> new Refused("setup statement " + number
                                + " (`" + oneLine(sql) + "`) keeps no column without " + RID + "/" + WL));
                    }
                }
            } else if (insert.isPresent()) {
                List<String> defined = columns.getOrDefault(insert.get().table().toLowerCase(Locale.ROOT), List.of());
                List<String> listed = insert.get().columns();
                for (String c : List.of(RID, WL)) {
                    // a listed column is found by name; without a list, by its place in the table's definition
                    int position = listed != null ? indexOf(listed, c) : positionAfterDrops(defined, c);
                    if (position < 0) {
                        continue;
                    }
                    String before = plain;
                    plain = SchemaText.dropInsertColumn(plain, c, position).orElseThrow(() -> new Refused("setup statement " + number
                            + " (`" + oneLine(before) + "`): its " + c + " value cannot be told apart"));
                }
            }
            if (namesTracking(plain)) {
                throw new Refused("setup statement " + number + " (`" + oneLine(sql) + "`) uses " + RID + "/" + WL + " beyond row tracking");
            }
            out.add(plain);
        }
        return out;
    }

    /** Where column {@code c} is in a table defined with {@code defined}, once the tracking columns before it are gone. */
    private static int positionAfterDrops(List<String> defined, String c) {
        int p = indexOf(defined, c);
        if (p < 0) {
            return -1;
        }
        // rid is dropped first: wl moves one place to the left when rid came before it
        return c.equals(WL) && indexOf(defined, RID) >= 0 && indexOf(defined, RID) < p ? p - 1 : p;
    }

    private static int indexOf(List<String> names, String c) {
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).equalsIgnoreCase(c)) {
                return i;
            }
        }
        return -1;
    }

    // ------------------------------------------------------------------ transactions

    /**
     * One transaction: companions dropped, each group made its plain statement. {@code kept} marks the
     * instrumented statement whose place in the submitted order the plain statement takes (a
     * deleting group's first statement, where its WHERE is evaluated); {@code origin} maps each plain statement to the
     * instrumented one it stands for (a group's program statement).
     */
    private static Txn transaction(Txn t, Map<String, List<String>> columns, Map<StmtRef, Boolean> kept, Map<StmtRef, StmtRef> origin)
            throws Refused {
        TrackedGroups grouped = TrackedGroups.of(t);
        if (grouped.problem() != null) {
            throw new Refused(grouped.problem());
        }
        Map<StmtRef, TrackedGroups.Group> byPlace = new java.util.HashMap<>();
        for (TrackedGroups.Group g : grouped.groups()) {
            byPlace.put(g.tag() != null ? g.tag() : g.main(), g);
        }
        List<Stmt> out = new ArrayList<>();
        for (int k = 0; k < t.statements().size(); k++) {
            Stmt s = t.statements().get(k);
            StmtRef ref = new StmtRef(t.id(), k);
            TrackedGroups.Group g = byPlace.get(ref);
            if (s.kind().isControl()) {
                out.add(s);
                origin.put(new StmtRef(t.id(), out.size() - 1), ref);
            } else if (g == null) {
                continue; // a companion: not part of the user's program
            } else if (g.tag() != null) {
                Stmt write = t.statements().get(g.main().index());
                out.add(new Stmt(write.kind(), deleting(s, write, t, g.main().index()), write.needsTransaction()));
                origin.put(new StmtRef(t.id(), out.size() - 1), g.main());
            } else {
                out.add(new Stmt(s.kind(), plain(selfAssigned(s, columns), t, k), s.needsTransaction()));
                origin.put(new StmtRef(t.id(), out.size() - 1), g.main());
            }
            kept.put(ref, true);
        }
        if (out.stream().allMatch(s -> s.kind().isControl())) {
            throw new Refused("T" + t.id() + " has no statement of the program, only row tracking");
        }
        return t.with(t.id(), out);
    }

    private static String ref(Txn t, int index) {
        return "T" + t.id() + "." + index;
    }

    /** A statement that is not part of a deleting group. */
    private static String plain(Stmt s, Txn t, int k) throws Refused {
        return plain(s, ref(t, k) + " `" + oneLine(s.sql()) + "`");
    }

    private static String plain(Stmt s, String where) throws Refused {
        Tracking tr = s.tracking();
        String out;
        if (tr == null) {
            out = s.sql();
        } else if (tr.role() == Tracking.Role.READ) {
            out = read(s, where);
        } else if (tr.role() == Tracking.Role.WRITE) {
            if (tr.deletes() && Sql.tokens(s.sql()).stream().noneMatch(x -> x.is("RETURNING"))) {
                throw new Refused(where + " deletes by tag without the tag-update that says which rows");
            }
            out = write(s.sql(), where);
        } else {
            throw new Refused(where + " has the tracking role " + tr.role() + ", which no plain statement has");
        }
        return checked(out, tr == null ? null : tr.tag(), where);
    }

    /**
     * A tag-UPDATE and the write after it. For a DELETE, the delete-by-tag gives way to {@code DELETE
     * FROM t} with the tag-UPDATE's WHERE (those are the rows it deletes); for REPLACE and MERGE …
     * THEN DELETE, the tag-UPDATE only tracked what the write deletes: the write itself is the
     * program's statement.
     */
    private static String deleting(Stmt tag, Stmt write, Txn t, int k) throws Refused {
        String where = ref(t, k) + " `" + oneLine(write.sql()) + "`";
        Tracking tr = write.tracking();
        if (tr == null || tr.role() != Tracking.Role.WRITE || !tr.deletes() || !tr.tag().equals(tag.tracking().tag())) {
            throw new Refused(where + " follows a tag-update but is not the write that carries its tag");
        }
        if (write.kind() == StmtKind.UPSERT) {
            return checked(write(write.sql(), where), tr.tag(), where);
        }
        if (write.kind() != StmtKind.DELETE) {
            throw new Refused(where + " follows a tag-update but is neither a DELETE nor an upsert");
        }
        String table = tr.tables().isEmpty() ? "" : tr.tables().get(0);
        Pattern byTag = Pattern.compile("DELETE FROM " + Pattern.quote(table) + " WHERE " + WL + " LIKE '%," + Pattern.quote(tr.tag()) + "'",
                Pattern.CASE_INSENSITIVE);
        if (!byTag.matcher(write.sql().strip()).matches()) {
            throw new Refused(where + " is not the delete by tag its tag-update prepares");
        }
        List<Token> tt = Sql.tokens(tag.sql());
        if (tt.size() < 4 || !tt.get(0).is("UPDATE") || !Sql.name(tt.get(1)).equalsIgnoreCase(table) || !tt.get(2).is("SET")) {
            throw new Refused(where + ": its tag-update `" + oneLine(tag.sql()) + "` is not UPDATE " + table + " SET …");
        }
        int end = listEnd(tt, 3, tt.get(2).depth());
        List<int[]> items = Sql.split(tt, 3, end, tt.get(2).depth());
        if (items.size() != 1 || !assignsWl(tt, items.get(0))) {
            throw new Refused(where + ": its tag-update `" + oneLine(tag.sql()) + "` does more than append the tag");
        }
        String plain = "DELETE FROM " + table + (end < tt.size() ? " " + tag.sql().substring(tt.get(end).start()).strip() : "");
        return checked(plain, tr.tag(), where);
    }

    // ------------------------------------------------------------------ SELECT

    /**
     * A tracked SELECT without the items it leads with: per table (rid, wl), for a "*" table its name
     * too. An aggregate's or a UNION's tracked form reads their rows instead; the statement it stands
     * for is recorded beside it ({@link Tracking#plain}), and is taken when it reads from the same FROM
     * … WHERE as the tracked text does now.
     */
    private static String read(Stmt s, String where) throws Refused {
        String sql = s.sql();
        String recorded = s.tracking().plain();
        if (recorded != null) {
            for (String part : sql.split(" UNION ALL ")) {
                int from = part.indexOf(" FROM ");
                if (from < 0 || !readsFrom(recorded, part.substring(from))) {
                    throw new Refused(where + " no longer reads what the statement it stands for, `" + oneLine(recorded) + "`, reads");
                }
            }
            return recorded;
        }
        List<Token> t = Sql.tokens(sql);
        if (t.isEmpty() || !t.get(0).is("SELECT")) {
            throw new Refused(where + " is a tracked read that does not start with SELECT");
        }
        int from = 1;
        if (from < t.size() && t.get(from).is("DISTINCT")) {
            from++;
        }
        int end = from;
        while (end < t.size() && !(t.get(end).depth() == 0 && t.get(end).is("FROM"))) {
            end++;
        }
        List<int[]> items = Sql.split(t, from, end, 0);
        int lead = 0;
        for (String table : s.tracking().tables()) {
            if (Tracking.TABLE_COLUMN.equals(table)) {
                if (lead >= items.size() || items.get(lead)[1] - items.get(lead)[0] != 1 || t.get(items.get(lead)[0]).type() != Sql.Type.STRING) {
                    throw new Refused(where + " does not lead with the table name its tracking names");
                }
                lead++;
            }
            for (String column : List.of(RID, WL)) {
                if (lead >= items.size() || !isColumn(t, items.get(lead), column)) {
                    throw new Refused(where + " does not lead with the (" + RID + ", " + WL + ") items its tracking names");
                }
                lead++;
            }
        }
        if (lead >= items.size()) {
            throw new Refused(where + " reads rows in its tracked form (an aggregate or a UNION reads its rows instead),"
                    + " and the statement it stands for is not recorded beside it");
        }
        return sql.substring(0, t.get(items.get(0)[0]).start()) + sql.substring(t.get(items.get(lead)[0]).start());
    }

    /** Clauses that may follow an aggregate's or a UNION side's FROM … WHERE in the recorded statement. */
    private static final List<String> AFTER_WHERE = List.of(" GROUP BY ", " HAVING ", " ORDER BY ", " UNION ");

    /** Whether {@code recorded} has {@code fromWhere} as one of its whole FROM … WHERE parts (not just a prefix of one). */
    private static boolean readsFrom(String recorded, String fromWhere) {
        for (int i = recorded.indexOf(fromWhere); i >= 0; i = recorded.indexOf(fromWhere, i + 1)) {
            String after = recorded.substring(i + fromWhere.length());
            if (after.isEmpty() || AFTER_WHERE.stream().anyMatch(after::startsWith)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a tracked read or write does something of the program besides its tracking, so that it
     * has a plain form: the reducer keeps that so (a read of nothing but rid/wl, an UPDATE that only
     * appends its tag, is no statement of a user's).
     */
    static boolean hasPlainForm(Stmt s) {
        try {
            plain(s, "");
            return true;
        } catch (Refused e) {
            return false;
        }
    }

    /** Whether tokens [p0, p1) are {@code column} or {@code q.column}. */
    private static boolean isColumn(List<Token> t, int[] p, String column) {
        int n = p[1] - p[0];
        return (n == 1 || (n == 3 && t.get(p[0] + 1).is("."))) && Sql.name(t.get(p[1] - 1)).equalsIgnoreCase(column)
                && t.get(p[1] - 1).type() != Sql.Type.STRING;
    }

    // ------------------------------------------------------------------ writes

    /**
     * A write whose SET list assigns nothing but the tag ({@code UPDATE t SET wl = wl || ',1.2'}: a hand-written
     * case's way to write a row without changing its values) with that item made a self-assignment of the
     * table's first column ({@code SET k = k}), the statement a user writes for it. It writes each row it
     * matches on an engine that writes an unchanged row (PostgreSQL makes a new row version, so a
     * concurrent REPEATABLE READ writer fails as it does for the tagged one); on one that does not
     * (InnoDB), it only locks them, and the self-check of the plain form against the tracked run says so.
     * Anything else is returned as it is (then {@link #write} refuses a tag-only SET list, as before).
     */
    private static Stmt selfAssigned(Stmt s, Map<String, List<String>> columns) {
        if (s.tracking() == null || s.tracking().role() != Tracking.Role.WRITE) {
            return s;
        }
        List<Token> t = Sql.tokens(s.sql());
        for (int i = 0; i < t.size(); i++) {
            Token x = t.get(i);
            if (!x.is("SET")) {
                continue;
            }
            List<int[]> items = Sql.split(t, i + 1, listEnd(t, i + 1, x.depth()), x.depth());
            if (items.size() != 1 || !assignsWl(t, items.get(0))) {
                continue;
            }
            Optional<String> column = targetTable(t).map(table -> columns.getOrDefault(table.toLowerCase(Locale.ROOT), List.of()))
                    .flatMap(cs -> cs.stream().filter(c -> !c.equalsIgnoreCase(RID) && !c.equalsIgnoreCase(WL)).findFirst());
            if (column.isEmpty()) {
                return s;
            }
            int[] item = items.get(0);
            int eq = item[0];
            while (!t.get(eq).is("=")) {
                eq++;
            }
            String target = s.sql().substring(t.get(item[0]).start(), t.get(eq - 1).start()) + column.get(); // keeps "q." of "q.wl"
            String qualifier = "";
            for (int j = eq + 1; j + 2 < item[1]; j++) {
                if (t.get(j + 1).is(".") && isColumn(t, new int[] {j, j + 3}, WL)) {
                    qualifier = t.get(j).text() + ".";
                    break;
                }
            }
            String sql = Sql.splice(s.sql(), t.get(item[0]).start(), t.get(item[1] - 1).end(), target + " = " + qualifier + column.get());
            return new Stmt(s.kind(), sql, s.needsTransaction(), s.tracking());
        }
        return s;
    }

    /** The table a write changes: {@code UPDATE t}, {@code MERGE INTO t}, {@code INSERT INTO t}. */
    private static Optional<String> targetTable(List<Token> t) {
        if (!t.isEmpty() && t.get(0).is("UPDATE") && t.size() > 1) {
            return Optional.of(Sql.name(t.get(1)));
        }
        for (int i = 0; i + 1 < t.size(); i++) {
            if (t.get(i).depth() == 0 && t.get(i).is("INTO")) {
                return Optional.of(Sql.name(t.get(i + 1)));
            }
        }
        return Optional.empty();
    }

    /**
     * A write without its tracking: the {@code wl = …} assignment of every SET list (and of ON
     * DUPLICATE KEY UPDATE), the rid/wl columns of every column list with their values (VALUES rows
     * or the SELECT list after it), and {@code RETURNING rid, wl}.
     */
    private static String write(String sql, String where) throws Refused {
        List<Token> t = Sql.tokens(sql);
        List<int[]> spans = new ArrayList<>();
        for (int i = 0; i < t.size(); i++) {
            Token x = t.get(i);
            boolean setList = x.is("SET") || (x.is("UPDATE") && i > 0 && t.get(i - 1).is("KEY"));
            if (setList) {
                int end = listEnd(t, i + 1, x.depth());
                List<int[]> items = Sql.split(t, i + 1, end, x.depth());
                List<Integer> tagging = new ArrayList<>();
                for (int k = 0; k < items.size(); k++) {
                    if (assignsWl(t, items.get(k))) {
                        tagging.add(k);
                    }
                }
                if (!tagging.isEmpty() && tagging.size() == items.size()) {
                    throw new Refused(where + " assigns nothing but the tag");
                }
                for (int k : tagging) {
                    spans.add(itemSpan(t, items, k, end));
                }
            } else if (x.is("(")) {
                Optional<List<String>> cols = columnList(t, i);
                if (cols.isPresent()) {
                    spans.addAll(trackedValues(t, i, cols.get()));
                }
            } else if (x.is("RETURNING") && x.depth() == 0) {
                List<int[]> items = Sql.split(t, i + 1, t.size(), 0);
                if (items.size() != 2 || !isColumn(t, items.get(0), RID) || !isColumn(t, items.get(1), WL)) {
                    throw new Refused(where + " returns more than the rows' " + RID + " and " + WL);
                }
                spans.add(new int[] {t.get(i - 1).end(), sql.length()});
            }
        }
        if (spans.stream().anyMatch(s -> s == null)) {
            throw new Refused(where + ": its " + RID + "/" + WL + " values do not line up with its columns");
        }
        return SchemaText.delete(sql, spans);
    }

    /** Whether an assignment "wl = …" (or "q.wl = …") is tokens [p0, p1). */
    private static boolean assignsWl(List<Token> t, int[] p) {
        for (int i = p[0]; i < p[1]; i++) {
            if (t.get(i).is("=")) {
                return isColumn(t, new int[] {p[0], i}, WL);
            }
        }
        return false;
    }

    /** Where a comma list starting at {@code from} at {@code depth} ends: a clause keyword at its depth, a closing parenthesis, or the end. */
    private static int listEnd(List<Token> t, int from, int depth) {
        int cases = 0; // CASE … WHEN … END inside an assignment: its WHEN ends nothing
        for (int j = from; j < t.size(); j++) {
            Token y = t.get(j);
            if (y.depth() < depth) {
                return j;
            }
            if (y.depth() == depth && y.is("CASE")) {
                cases++;
            } else if (y.depth() == depth && y.is("END") && cases > 0) {
                cases--;
            } else if (cases == 0 && y.depth() == depth && y.type() == Sql.Type.WORD && SET_LIST_ENDS.contains(y.upper())) {
                return j;
            }
        }
        return t.size();
    }

    /** The column names in the parenthesised list opening at {@code open}, when it is such a list and names rid or wl. */
    private static Optional<List<String>> columnList(List<Token> t, int open) {
        int close = Sql.closing(t, open);
        if (close < 0 || close + 1 >= t.size()) {
            return Optional.empty();
        }
        List<String> names = new ArrayList<>();
        for (int[] p : Sql.split(t, open + 1, close, t.get(open).depth() + 1)) {
            if (p[1] - p[0] != 1 || !(t.get(p[0]).type() == Sql.Type.WORD || t.get(p[0]).type() == Sql.Type.QUOTED)) {
                return Optional.empty();
            }
            names.add(Sql.name(t.get(p[0])));
        }
        boolean namesTracking = indexOf(names, RID) >= 0 || indexOf(names, WL) >= 0;
        return namesTracking && (t.get(close + 1).is("VALUES") || t.get(close + 1).is("SELECT")) ? Optional.of(names) : Optional.empty();
    }

    /**
     * The spans of the rid/wl columns of the column list at {@code open} and of their values: each
     * VALUES row's, or the SELECT list's. A null span where a row does not have as many values as columns.
     */
    private static List<int[]> trackedValues(List<Token> t, int open, List<String> cols) {
        int close = Sql.closing(t, open);
        int depth = t.get(open).depth();
        List<int[]> colItems = Sql.split(t, open + 1, close, depth + 1);
        List<Integer> drop = new ArrayList<>();
        for (int k = 0; k < cols.size(); k++) {
            if (cols.get(k).equalsIgnoreCase(RID) || cols.get(k).equalsIgnoreCase(WL)) {
                drop.add(k);
            }
        }
        List<int[]> spans = new ArrayList<>();
        if (drop.size() == cols.size()) {
            spans.add(null);
            return spans;
        }
        for (int k : drop) {
            spans.add(itemSpan(t, colItems, k, close));
        }
        int next = close + 1;
        if (t.get(next).is("SELECT")) {
            int from = next + 1;
            int end = from;
            while (end < t.size() && !(t.get(end).depth() == depth && t.get(end).is("FROM"))) {
                end++;
            }
            List<int[]> items = Sql.split(t, from, end, depth);
            dropValues(t, items, drop, cols.size(), end, spans);
            return spans;
        }
        int i = next + 1; // after VALUES: (row), (row) ...
        while (i < t.size() && t.get(i).is("(")) {
            int rowClose = Sql.closing(t, i);
            if (rowClose < 0) {
                spans.add(null);
                return spans;
            }
            dropValues(t, Sql.split(t, i + 1, rowClose, t.get(i).depth() + 1), drop, cols.size(), rowClose, spans);
            i = rowClose + 1;
            if (i < t.size() && t.get(i).is(",")) {
                i++;
            } else {
                break;
            }
        }
        return spans;
    }

    private static void dropValues(List<Token> t, List<int[]> items, List<Integer> drop, int columns, int end, List<int[]> spans) {
        if (items.size() != columns) {
            spans.add(null);
            return;
        }
        for (int k : drop) {
            spans.add(itemSpan(t, items, k, end));
        }
    }

    /**
     * The characters that remove item {@code k} of a comma list with one comma: from the end of the
     * item before it, or (the first item) up to the next item's start; {@code end} is the token after the list.
     */
    private static int[] itemSpan(List<Token> t, List<int[]> items, int k, int end) {
        int[] p = items.get(k);
        if (k == 0) {
            int nextStart = items.size() > 1 ? t.get(items.get(1)[0]).start() : t.get(Math.min(end, t.size() - 1)).start();
            return new int[] {t.get(p[0]).start(), nextStart};
        }
        return new int[] {t.get(items.get(k - 1)[1] - 1).end(), t.get(p[1] - 1).end()};
    }

    // ------------------------------------------------------------------ checks

    /** The stripped text, when nothing of the tracking is left in it: neither column, nor the statement's tag. */
    private static String checked(String plain, String tag, String where) throws Refused {
        if (namesTracking(plain)) {
            throw new Refused(where + " still names " + RID + " or " + WL + " once its tracking is removed");
        }
        if (tag != null) {
            for (Token x : Sql.tokens(plain)) {
                if (x.type() == Sql.Type.STRING && (x.text().contains("," + tag + "'") || x.text().contains("/" + tag + "'"))) {
                    throw new Refused(where + " still carries its tag " + tag + " once its tracking is removed");
                }
            }
        }
        return plain;
    }

    private static boolean namesTracking(String sql) {
        return Sql.mentions(sql, RID) || Sql.mentions(sql, WL);
    }

    private static String oneLine(String sql) {
        String s = sql.replaceAll("\\s+", " ").strip();
        return s.length() > 80 ? s.substring(0, 77) + "..." : s;
    }
}
