package txfuzz.reduce;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import txfuzz.reduce.Sql.Token;

/**
 * Simpler variants of one statement's text, most promising first: a WHERE removed, a condition
 * reduced to one of its conjuncts or disjuncts, a subquery replaced by a constant, select-list and
 * SET items dropped, DISTINCT and ORDER BY dropped, constants replaced by 0, 1 or ''. Every
 * variant is shorter or has simpler constants, so repeated simplification ends. A variant that no
 * longer parses is produced freely: the engine rejects it and the reducer drops it.
 */
final class Simplifier {
    private Simplifier() {
    }

    /** Words that end a WHERE/ON/HAVING condition at its own depth. */
    private static final Set<String> CLAUSE_ENDS = Set.of("GROUP", "HAVING", "ORDER", "UNION", "EXCEPT", "INTERSECT", "FOR", "LOCK", "LIMIT",
            "OFFSET", "FETCH", "WINDOW", "RETURNING", "ON", "WHEN", "THEN", "WHERE", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "DO");

    static List<String> variants(String sql) {
        List<Token> t = Sql.tokens(sql);
        Set<String> out = new LinkedHashSet<>();
        whereRemovals(sql, t, out);
        operandChoices(sql, t, out);
        subqueries(sql, t, out);
        listItems(sql, t, out);
        clauses(sql, t, out);
        constants(sql, t, out);
        out.remove(sql);
        return new ArrayList<>(out);
    }

    /** Constants of a setup INSERT's rows made simpler, one at a time. */
    static List<String> constantVariants(String sql) {
        Set<String> out = new LinkedHashSet<>();
        constants(sql, Sql.tokens(sql), out);
        out.remove(sql);
        return new ArrayList<>(out);
    }

    /** Token index just past the condition that starts at {@code from} (depth {@code depth}). */
    private static int conditionEnd(List<Token> t, int from, int depth) {
        boolean between = false;
        for (int i = from; i < t.size(); i++) {
            Token x = t.get(i);
            if (x.depth() < depth || (x.is(")") && x.depth() <= depth - 1)) {
                return i;
            }
            if (x.depth() == depth) {
                if (x.is(";")) {
                    return i;
                }
                if (x.is("BETWEEN")) {
                    between = true;
                }
                if (x.type() == Sql.Type.WORD && CLAUSE_ENDS.contains(x.upper()) && i > from) {
                    return i;
                }
                if (x.is("AND") && between) {
                    between = false;
                }
            }
        }
        return t.size();
    }

    private static void whereRemovals(String sql, List<Token> t, Set<String> out) {
        for (int i = 0; i < t.size(); i++) {
            if (t.get(i).is("WHERE") || t.get(i).is("HAVING")) {
                int end = conditionEnd(t, i + 1, t.get(i).depth());
                if (end > i + 1) {
                    out.add(Sql.splice(sql, t.get(i).start(), t.get(end - 1).end(), ""));
                }
            }
        }
    }

    /** Operand ranges of a condition [from, to) split at its top-level AND/OR (BETWEEN's AND excluded). */
    private static List<int[]> operands(List<Token> t, int from, int to, int depth) {
        List<int[]> ops = new ArrayList<>();
        boolean between = false;
        int s = from;
        for (int i = from; i < to; i++) {
            Token x = t.get(i);
            if (x.depth() != depth || x.type() != Sql.Type.WORD) {
                continue;
            }
            if (x.is("BETWEEN")) {
                between = true;
            } else if (x.is("AND") && between) {
                between = false;
            } else if (x.is("AND") || x.is("OR")) {
                ops.add(new int[] {s, i});
                s = i + 1;
            }
        }
        ops.add(new int[] {s, to});
        return ops;
    }

    private static void operandChoices(String sql, List<Token> t, Set<String> out) {
        for (int i = 0; i < t.size(); i++) {
            Token x = t.get(i);
            int from;
            int to;
            int depth;
            if (x.is("WHERE") || x.is("ON") || x.is("HAVING") || (x.is("AND") && i > 0 && t.get(i - 1).is("MATCHED"))
                    || (x.is("AND") && i > 1 && t.get(i - 1).is("MATCHED") && t.get(i - 2).is("NOT"))) {
                depth = x.depth();
                from = i + 1;
                to = conditionEnd(t, from, depth);
            } else if (x.is("(") && i + 1 < t.size() && !t.get(i + 1).is("SELECT")) {
                int close = Sql.closing(t, i);
                if (close < 0) {
                    continue;
                }
                depth = x.depth() + 1;
                from = i + 1;
                to = close;
            } else {
                continue;
            }
            if (from >= to) {
                continue;
            }
            List<int[]> ops = operands(t, from, to, depth);
            if (ops.size() < 2) {
                continue;
            }
            for (int[] op : ops) {
                if (op[0] >= op[1]) {
                    continue;
                }
                String operand = sql.substring(t.get(op[0]).start(), t.get(op[1] - 1).end());
                out.add(sql.substring(0, t.get(from).start()) + operand + sql.substring(t.get(to - 1).end()));
            }
        }
    }

    private static void subqueries(String sql, List<Token> t, Set<String> out) {
        for (int i = 0; i + 1 < t.size(); i++) {
            if (!t.get(i).is("(") || !t.get(i + 1).is("SELECT")) {
                continue;
            }
            int close = Sql.closing(t, i);
            if (close < 0) {
                continue;
            }
            int start = t.get(i).start();
            int end = t.get(close).end();
            if (i > 0 && t.get(i - 1).is("EXISTS")) {
                int s = t.get(i - 1).start();
                out.add(sql.substring(0, s) + "(1 = 1)" + sql.substring(end));
                out.add(sql.substring(0, s) + "(1 = 0)" + sql.substring(end));
            } else if (i > 0 && t.get(i - 1).is("IN")) {
                out.add(sql.substring(0, start) + "(0)" + sql.substring(end));
                out.add(sql.substring(0, start) + "('')" + sql.substring(end));
            } else if (i > 0 && (t.get(i - 1).is("INSERT") || t.get(i - 1).is("UNION") || t.get(i - 1).is("AS"))) {
                // a query, not a scalar: leave it
            } else {
                out.add(sql.substring(0, start) + "0" + sql.substring(end));
                out.add(sql.substring(0, start) + "1" + sql.substring(end));
                out.add(sql.substring(0, start) + "''" + sql.substring(end));
            }
        }
    }

    /** Drops one item of a SELECT list or of a SET list. */
    private static void listItems(String sql, List<Token> t, Set<String> out) {
        for (int i = 0; i < t.size(); i++) {
            Token x = t.get(i);
            int from;
            Set<String> ends;
            if (x.is("SELECT")) {
                from = i + 1;
                if (from < t.size() && (t.get(from).is("DISTINCT") || t.get(from).is("ALL"))) {
                    from++;
                }
                ends = Set.of("FROM");
            } else if (x.is("SET")) {
                from = i + 1;
                ends = Set.of("WHERE", "WHEN", "FROM", "RETURNING");
            } else {
                continue;
            }
            int depth = x.depth();
            int to = from;
            while (to < t.size() && t.get(to).depth() >= depth && !(t.get(to).is(")") && t.get(to).depth() == depth - 1)
                    && !(t.get(to).depth() == depth && t.get(to).type() == Sql.Type.WORD && ends.contains(t.get(to).upper()))) {
                to++;
            }
            if (to <= from) {
                continue;
            }
            List<int[]> parts = Sql.split(t, from, to, depth);
            if (parts.size() < 2) {
                continue;
            }
            for (int k = 0; k < parts.size(); k++) {
                int[] p = parts.get(k);
                if (p[0] >= p[1]) {
                    continue;
                }
                int s;
                int e;
                if (k == 0) {
                    s = t.get(p[0]).start();
                    e = t.get(parts.get(1)[0]).start();
                } else {
                    s = t.get(parts.get(k - 1)[1] - 1).end();
                    e = t.get(p[1] - 1).end();
                }
                out.add(sql.substring(0, s) + sql.substring(e));
            }
        }
    }

    /** DISTINCT and ORDER BY dropped. */
    private static void clauses(String sql, List<Token> t, Set<String> out) {
        for (int i = 0; i < t.size(); i++) {
            Token x = t.get(i);
            if (x.is("DISTINCT") && i > 0 && t.get(i - 1).is("SELECT")) {
                out.add(Sql.splice(sql, x.start(), x.end(), ""));
            }
            if (x.is("ORDER") && i + 1 < t.size() && t.get(i + 1).is("BY")) {
                int end = conditionEnd(t, i + 2, x.depth());
                out.add(Sql.splice(sql, x.start(), t.get(end - 1).end(), ""));
            }
        }
    }

    /** Numbers to 0 (or 1), negative numbers in parentheses likewise, strings to ''. */
    private static void constants(String sql, List<Token> t, Set<String> out) {
        for (int i = 0; i < t.size(); i++) {
            Token x = t.get(i);
            if (i > 0 && (t.get(i - 1).is("VARCHAR") || t.get(i - 1).is("CHAR") || t.get(i - 1).is("DECIMAL") || t.get(i - 1).is("NUMERIC")
                    || (t.get(i - 1).is("(") && i > 1 && (t.get(i - 2).is("VARCHAR") || t.get(i - 2).is("CHAR") || t.get(i - 2).is("DECIMAL")
                    || t.get(i - 2).is("NUMERIC"))))) {
                continue;
            }
            if (x.type() == Sql.Type.NUMBER) {
                int s = x.start();
                int e = x.end();
                String text = x.text();
                // "(-3)" as one constant
                if (i >= 2 && t.get(i - 1).is("-") && t.get(i - 2).is("(") && i + 1 < t.size() && t.get(i + 1).is(")")) {
                    s = t.get(i - 2).start();
                    e = t.get(i + 1).end();
                    text = "-" + text;
                }
                if (!text.equals("0")) {
                    out.add(sql.substring(0, s) + "0" + sql.substring(e));
                }
                if (!text.equals("0") && !text.equals("1")) {
                    out.add(sql.substring(0, s) + "1" + sql.substring(e));
                }
            } else if (x.type() == Sql.Type.STRING && !x.text().equals("''")) {
                if (i > 0 && (t.get(i - 1).is("LIKE"))) {
                    out.add(sql.substring(0, x.start()) + "'%'" + sql.substring(x.end()));
                    continue;
                }
                out.add(sql.substring(0, x.start()) + "''" + sql.substring(x.end()));
            }
        }
    }
}
