package txfuzz.imports;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * SQL text as a schedule file holds it: split into statements at the semicolons that end them (not
 * those inside quotes, dollar quotes or comments), and the leading words that say what a statement is.
 */
final class SqlText {
    private SqlText() {
    }

    /** The statements of {@code text}, each without its terminating semicolon; comments kept inside a statement, empty ones dropped. */
    static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            int end = i + 1;
            if (c == '\'' || c == '"' || c == '`') {
                end = closing(text, i, String.valueOf(c));
            } else if (c == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
                end = text.indexOf('\n', i);
                end = end < 0 ? n : end;
            } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
                end = text.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
            } else if (c == '$') {
                String tag = dollarTag(text, i);
                if (tag != null) {
                    int close = text.indexOf(tag, i + tag.length());
                    end = close < 0 ? n : close + tag.length();
                }
            } else if (c == ';') {
                add(out, cur);
                cur.setLength(0);
                i++;
                continue;
            }
            cur.append(text, i, end);
            i = end;
        }
        add(out, cur);
        return out;
    }

    private static void add(List<String> out, StringBuilder cur) {
        String s = cur.toString().strip();
        if (!withoutComments(s).isBlank()) {
            out.add(s);
        }
    }

    /** The index after the quote that closes the one at {@code start} (a doubled quote is part of the text). */
    private static int closing(String text, int start, String quote) {
        int i = start + 1;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\' && quote.equals("'") && i + 1 < text.length()) {
                i += 2; // MySQL's backslash escape; in PostgreSQL's standard strings a backslash before a quote does not occur in the specs
                continue;
            }
            if (text.startsWith(quote, i)) {
                if (text.startsWith(quote, i + 1)) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return text.length();
    }

    /** PostgreSQL's {@code $tag$} opening a dollar-quoted string at {@code i}, or null. */
    private static String dollarTag(String text, int i) {
        int j = i + 1;
        while (j < text.length() && (Character.isLetterOrDigit(text.charAt(j)) || text.charAt(j) == '_')) {
            j++;
        }
        if (j < text.length() && text.charAt(j) == '$' && (j == i + 1 || !Character.isDigit(text.charAt(i + 1)))) {
            return text.substring(i, j + 1);
        }
        return null;
    }

    /** {@code sql} without its comments, whitespace collapsed. */
    static String withoutComments(String sql) {
        String s = sql.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("--[^\\n]*", " ");
        return s.replaceAll("\\s+", " ").strip();
    }

    /** The statement's words in upper case, up to {@code count}, comments left out. */
    static List<String> words(String sql, int count) {
        String s = withoutComments(sql).toUpperCase(Locale.ROOT);
        List<String> out = new ArrayList<>();
        for (String w : s.split("[\\s(;]+")) {
            if (!w.isEmpty()) {
                out.add(w);
                if (out.size() == count) {
                    break;
                }
            }
        }
        return out;
    }

    /** One line: whitespace collapsed. */
    static String oneLine(String sql) {
        return sql.replaceAll("\\s+", " ").strip();
    }
}
