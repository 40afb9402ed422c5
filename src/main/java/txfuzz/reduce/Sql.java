package txfuzz.reduce;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Just enough SQL lexing for the reducer: words, numbers, string literals, quoted identifiers and
 * punctuation, each with its offsets and parenthesis depth, so text can be cut at token and clause
 * boundaries without ever splitting a literal or a parenthesised group.
 */
final class Sql {
    private Sql() {
    }

    enum Type { WORD, NUMBER, STRING, QUOTED, PUNCT }

    /**
     * @param depth parenthesis depth the token sits at; for '(' the depth outside it, for ')' the
     *              depth outside it too, so a group's parentheses share the depth of their neighbours
     */
    record Token(Type type, String text, int start, int end, int depth) {
        boolean is(String word) {
            return (type == Type.WORD || type == Type.PUNCT) && text.equalsIgnoreCase(word);
        }

        String upper() {
            return text.toUpperCase(Locale.ROOT);
        }
    }

    static List<Token> tokens(String sql) {
        List<Token> out = new ArrayList<>();
        int depth = 0;
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char ch = sql.charAt(i);
            if (Character.isWhitespace(ch)) {
                i++;
            } else if (ch == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int e = sql.indexOf('\n', i);
                i = e < 0 ? n : e + 1;
            } else if (ch == '\'') {
                int j = i + 1;
                while (j < n) {
                    if (sql.charAt(j) == '\'') {
                        if (j + 1 < n && sql.charAt(j + 1) == '\'') {
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    j++;
                }
                int end = Math.min(j + 1, n);
                out.add(new Token(Type.STRING, sql.substring(i, end), i, end, depth));
                i = end;
            } else if (ch == '"' || ch == '`') {
                int j = sql.indexOf(ch, i + 1);
                int end = j < 0 ? n : j + 1;
                out.add(new Token(Type.QUOTED, sql.substring(i, end), i, end, depth));
                i = end;
            } else if (Character.isDigit(ch) || (ch == '.' && i + 1 < n && Character.isDigit(sql.charAt(i + 1)))) {
                int j = i;
                while (j < n && (Character.isDigit(sql.charAt(j)) || sql.charAt(j) == '.')) {
                    j++;
                }
                if (j < n && (sql.charAt(j) == 'e' || sql.charAt(j) == 'E') && j + 1 < n
                        && (Character.isDigit(sql.charAt(j + 1)) || ((sql.charAt(j + 1) == '-' || sql.charAt(j + 1) == '+') && j + 2 < n
                        && Character.isDigit(sql.charAt(j + 2))))) {
                    j += 2;
                    while (j < n && Character.isDigit(sql.charAt(j))) {
                        j++;
                    }
                }
                out.add(new Token(Type.NUMBER, sql.substring(i, j), i, j, depth));
                i = j;
            } else if (Character.isLetter(ch) || ch == '_' || ch == '$') {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_' || sql.charAt(j) == '$')) {
                    j++;
                }
                out.add(new Token(Type.WORD, sql.substring(i, j), i, j, depth));
                i = j;
            } else if (ch == '(') {
                out.add(new Token(Type.PUNCT, "(", i, i + 1, depth));
                depth++;
                i++;
            } else if (ch == ')') {
                depth = Math.max(0, depth - 1);
                out.add(new Token(Type.PUNCT, ")", i, i + 1, depth));
                i++;
            } else {
                int len = 1;
                if (i + 1 < n) {
                    String two = sql.substring(i, i + 2);
                    if (two.equals("<>") || two.equals("<=") || two.equals(">=") || two.equals("!=") || two.equals("||") || two.equals("::")) {
                        len = 2;
                    }
                }
                out.add(new Token(Type.PUNCT, sql.substring(i, i + len), i, i + len, depth));
                i += len;
            }
        }
        return out;
    }

    /** Index of the ')' closing the '(' at {@code open}, or -1. */
    static int closing(List<Token> t, int open) {
        int d = t.get(open).depth();
        for (int i = open + 1; i < t.size(); i++) {
            if (t.get(i).is(")") && t.get(i).depth() == d) {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code sql} names {@code name} as a word or quoted identifier (never inside a string literal). */
    static boolean mentions(String sql, String name) {
        for (Token t : tokens(sql)) {
            if (t.type() == Type.WORD && t.text().equalsIgnoreCase(name)) {
                return true;
            }
            if (t.type() == Type.QUOTED && t.text().length() > 2 && t.text().substring(1, t.text().length() - 1).equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    static int count(List<Token> tokens, String name) {
        int n = 0;
        for (Token t : tokens) {
            if ((t.type() == Type.WORD && t.text().equalsIgnoreCase(name))
                    || (t.type() == Type.QUOTED && t.text().length() > 2 && t.text().substring(1, t.text().length() - 1).equalsIgnoreCase(name))) {
                n++;
            }
        }
        return n;
    }

    static String name(Token t) {
        return t.type() == Type.QUOTED && t.text().length() > 2 ? t.text().substring(1, t.text().length() - 1) : t.text();
    }

    /** {@code sql} with [start, end) replaced, the seam's spaces tidied. */
    static String splice(String sql, int start, int end, String with) {
        String left = sql.substring(0, start);
        String right = sql.substring(end);
        if (with.isEmpty()) {
            left = stripTrailing(left);
            if (!right.isEmpty() && !left.isEmpty() && !right.startsWith(" ") && !right.startsWith(")") && !right.startsWith(",")
                    && !left.endsWith("(")) {
                right = " " + right;
            }
            return left + right;
        }
        return left + with + right;
    }

    private static String stripTrailing(String s) {
        int e = s.length();
        while (e > 0 && Character.isWhitespace(s.charAt(e - 1))) {
            e--;
        }
        return s.substring(0, e);
    }

    /** Top-level (depth {@code depth}) comma-separated parts of tokens [from, to): token index ranges. */
    static List<int[]> split(List<Token> t, int from, int to, int depth) {
        List<int[]> parts = new ArrayList<>();
        int s = from;
        for (int i = from; i < to; i++) {
            if (t.get(i).is(",") && t.get(i).depth() == depth) {
                parts.add(new int[] {s, i});
                s = i + 1;
            }
        }
        parts.add(new int[] {s, to});
        return parts;
    }

    /** Words after a table name that are not its alias. */
    private static final java.util.Set<String> NOT_ALIASES = java.util.Set.of("WHERE", "SET", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS",
            "ON", "USING", "VALUES", "GROUP", "ORDER", "UNION", "EXCEPT", "INTERSECT", "WHEN", "SELECT", "FOR", "LOCK", "HAVING", "LIMIT",
            "DEFAULT", "RETURNING", "AS");

    /**
     * Whether {@code sql} may refer to column {@code column} of {@code table}: an unqualified
     * mention counts, a qualified one only when its qualifier is the table or one of its aliases.
     */
    static boolean mentionsColumn(String sql, String table, String column) {
        List<Token> t = tokens(sql);
        java.util.Set<String> bound = new java.util.HashSet<>();
        bound.add(table.toLowerCase(Locale.ROOT));
        for (int i = 0; i + 1 < t.size(); i++) {
            if (t.get(i).type() == Type.WORD && t.get(i).text().equalsIgnoreCase(table) && !(i > 0 && t.get(i - 1).is("."))) {
                int a = t.get(i + 1).is("AS") ? i + 2 : i + 1;
                if (a < t.size() && t.get(a).type() == Type.WORD && !NOT_ALIASES.contains(t.get(a).upper())) {
                    bound.add(t.get(a).text().toLowerCase(Locale.ROOT));
                }
            }
        }
        for (int i = 0; i < t.size(); i++) {
            Token x = t.get(i);
            if (!(x.type() == Type.WORD || x.type() == Type.QUOTED) || !name(x).equalsIgnoreCase(column)) {
                continue;
            }
            if (i >= 2 && t.get(i - 1).is(".")) {
                if (bound.contains(name(t.get(i - 2)).toLowerCase(Locale.ROOT))) {
                    return true;
                }
            } else {
                return true;
            }
        }
        return false;
    }
}
