package txfuzz.gen;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.gen.ExprGenerator.Ref;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.Tracking;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;

/**
 * Row tracking for the isolation checker (IsoRel §3.1.2, §3.2.2; docs/history-format.md): the
 * auxiliary columns {@code rid} and {@code wl}, the tags writes append, and the companion
 * statements. The statement generator builds, next to each plain statement, an {@link Expander}
 * that renders its instrumented form from the same pieces without drawing random numbers, so a
 * (seed, iteration) gives the same data statements with and without instrumentation.
 */
final class Instrumentation {
    /** Row identity, unique across the case's tables. */
    static final String RID = "rid";
    /** Write list: ",0" for initial rows; every write appends ",<T>.<s>". */
    static final String WL = "wl";
    /** Both columns' type: long enough for every write of the largest case (a tag is at most ~8 characters). */
    static final String TYPE = "VARCHAR(1000)";

    private Instrumentation() {
    }

    /** Where the statements of one generated statement go: transaction {@code txn}, first at index {@code index}. */
    record Ctx(int txn, int index, Dialect dialect) {
        /** The tag of the write statement placed {@code offset} statements after the first. */
        String tag(int offset) {
            return txn + "." + (index + offset);
        }
    }

    /** Renders a generated statement's instrumented form: the statement and its companions. */
    @FunctionalInterface
    interface Expander {
        List<Stmt> expand(Ctx ctx);
    }

    /** The wl literal a write with {@code tag} gives a new row. */
    static String tagLiteral(String tag) {
        return "'," + tag + "'";
    }

    /** {@code wl = <qual>wl || ',tag'}. */
    static String appendTag(Dialect d, String qualifier, String tag) {
        return WL + " = " + d.concat(qualifier + WL, tagLiteral(tag));
    }

    /** A SET list item "c = expr": its column and its expression. */
    private static final Pattern ASSIGNMENT = Pattern.compile("(\\w+) = (.*)", Pattern.DOTALL);

    /**
     * The SET list {@code sets} ("c = expr" each) with the tag appended to {@code wl}. Where the engine
     * does not write a row an UPDATE leaves unchanged ({@link Feature#UNCHANGED_ROWS_NOT_WRITTEN}), the
     * tag goes only to rows whose values change — {@code wl = IF(c <=> (expr) AND …, wl, wl || tag)},
     * placed first so that it compares old values — unless an expression reads a column assigned
     * before it (MySQL's SET is left to right: the comparison would see other values than the
     * assignment does). Otherwise every written row gets the tag, as the engine writes them all.
     */
    static String setsWithTag(Dialect d, List<String> sets, String tag) {
        List<String> same = unchangedConditions(d, sets);
        if (same == null) {
            return String.join(", ", sets) + ", " + appendTag(d, "", tag);
        }
        return WL + " = IF(" + String.join(" AND ", same) + ", " + WL + ", " + d.concat(WL, tagLiteral(tag)) + "), " + String.join(", ", sets);
    }

    /**
     * Whether {@link #setsWithTag} tags only the rows whose values change: then a row the write's WHERE
     * matched may carry no tag, and its post-read does not tell the rows it scanned.
     */
    static boolean tagsOnlyChangedRows(Dialect d, List<String> sets) {
        return unchangedConditions(d, sets) != null;
    }

    /** Per assignment "c <=> (expr)", or null where every written row is to get the tag. */
    private static List<String> unchangedConditions(Dialect d, List<String> sets) {
        if (!d.features().contains(Feature.UNCHANGED_ROWS_NOT_WRITTEN)) {
            return null;
        }
        List<String> same = new ArrayList<>();
        List<String> assigned = new ArrayList<>();
        for (String set : sets) {
            Matcher m = ASSIGNMENT.matcher(set);
            if (!m.matches()) {
                return null;
            }
            for (String earlier : assigned) {
                if (Pattern.compile("\\b" + Pattern.quote(earlier) + "\\b").matcher(m.group(2)).find()) {
                    return null;
                }
            }
            assigned.add(m.group(1));
            same.add(m.group(1) + " <=> (" + m.group(2) + ")");
        }
        return same;
    }

    /** The rid of row {@code k} of an INSERT … VALUES with {@code tag}. */
    static String ridLiteral(String tag, int k) {
        return tag + "." + k;
    }

    /** A rid unique per source row of an INSERT … SELECT: the source rid, a slash and the tag. */
    static String ridFrom(Dialect d, String sourceQualifier, String tag) {
        return d.concat(sourceQualifier + "." + RID, "'/" + tag + "'");
    }

    /** {@code SELECT rid, wl FROM t WHERE wl LIKE '%,tag'}: the rows whose last write is the tagged one. */
    static Stmt postRead(Schema.Table t, String tag) {
        return Stmt.of(StmtKind.SELECT, "SELECT " + RID + ", " + WL + " FROM " + t.name + " WHERE " + WL + " LIKE '%," + tag + "'",
                Tracking.postRead(t.name, tag));
    }

    /**
     * The match read of an UPDATE that tags only changed rows ({@link #tagsOnlyChangedRows}) with the
     * row-local {@code where} (" WHERE ..." as the UPDATE has it, or ""; {@code predicate} is its
     * normalised form): {@code SELECT rid, wl FROM t<where> <share lock> SKIP LOCKED}. The WHERE is the
     * UPDATE's text, so the recorder can tell that the two still agree (a reducer edits the UPDATE's).
     * After the UPDATE, the rows its WHERE still matches without its tag are the rows it matched and left
     * unchanged (their values did not change), in the newest version, the one it read. It neither waits
     * nor changes what the engine does: the UPDATE holds exclusive locks on the rows it matched, a row
     * another transaction locks is one the UPDATE did not match (it would have waited for it) and is
     * skipped, and a locking read takes no snapshot (MySQL manual 17.7.2.3).
     */
    static Stmt matchRead(Dialect d, Schema.Table t, String tag, String where, String predicate) {
        String lock = d.features().contains(Feature.FOR_SHARE) ? " FOR SHARE SKIP LOCKED" : " LOCK IN SHARE MODE SKIP LOCKED";
        return Stmt.of(StmtKind.SELECT, "SELECT " + RID + ", " + WL + " FROM " + t.name + where + lock,
                Tracking.matchRead(t.name, tag, predicate));
    }

    /** {@code UPDATE t SET wl = wl || ',tag'[ WHERE ...]}: tags the rows a deleting write is about to delete. */
    static Stmt tagUpdate(Dialect d, Schema.Table t, String where, String tag, String scanPredicate) {
        return Stmt.of(StmtKind.UPDATE, "UPDATE " + t.name + " SET " + appendTag(d, "", tag) + where, Tracking.tag(t.name, tag, scanPredicate));
    }

    /** "x0.rid, x0.wl, x1.rid, x1.wl" for the tables in scope. */
    static String pairs(List<Ref> refs) {
        List<String> out = new ArrayList<>();
        for (Ref r : refs) {
            out.add(r.qual() + "." + RID);
            out.add(r.qual() + "." + WL);
        }
        return String.join(", ", out);
    }

    static List<String> tables(List<Ref> refs) {
        List<String> out = new ArrayList<>();
        for (Ref r : refs) {
            out.add(r.table().name);
        }
        return out;
    }

    /** A qualified column reference's qualifier ("x0" in "x0.c1"). */
    private static final Pattern QUALIFIER = Pattern.compile("\\b([A-Za-z_][A-Za-z0-9_]*)\\.(?=[A-Za-z_])");
    /** A SQL string literal ('' escapes a quote). */
    private static final Pattern STRING_LITERAL = Pattern.compile("'(?:[^']|'')*'");

    /**
     * Whether {@code where} (" WHERE ..." or "") is a condition on {@code ref}'s own row alone: no
     * subquery and no column qualified by another table (a correlated subquery's outer row).
     */
    static boolean rowLocal(String where, Ref ref) {
        String code = STRING_LITERAL.matcher(where).replaceAll("''");
        if (code.toUpperCase(java.util.Locale.ROOT).contains("SELECT")) {
            return false;
        }
        var m = QUALIFIER.matcher(code);
        while (m.find()) {
            if (!m.group(1).equals(ref.qual())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The companion read of a row-local subquery (or of an INSERT … SELECT's source): {@code SELECT
     * rid, wl FROM u WHERE <its WHERE, unqualified>}, a plain predicate read of u. It runs after the
     * statement's group, in the same transaction, so it reads from the snapshot the statement
     * already established (or, at statement-snapshot levels, a later one); whatever it returns is a
     * read the transaction really made, so recording it cannot invent a dependency, only show one
     * the subquery may have had.
     */
    static Stmt subqueryRead(Ref inner, String where) {
        String pred = predicate(where, inner);
        String sql = "SELECT " + RID + ", " + WL + " FROM " + inner.table().name + (where.isEmpty() ? "" : " WHERE " + pred);
        return Stmt.of(StmtKind.SELECT, sql, Tracking.companionRead(inner.table().name, pred));
    }

    /**
     * The predicate of a single-table read for the history: the WHERE text without the table's
     * qualifier ({@code "true"} without WHERE), or null when it is not row-local (a subquery).
     *
     * @param where " WHERE ..." or ""
     */
    static String predicate(String where, Ref ref) {
        if (where.isEmpty()) {
            return "true";
        }
        String w = where.startsWith(" WHERE ") ? where.substring(" WHERE ".length()) : where;
        if (w.toUpperCase(java.util.Locale.ROOT).contains("SELECT")) {
            return null;
        }
        return w.replaceAll("\\b" + Pattern.quote(ref.qual()) + "\\.", "");
    }
}
