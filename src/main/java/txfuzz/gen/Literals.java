package txfuzz.gen;

import java.math.BigDecimal;

/** Rendering and comparing the generator's values: Integer, Double (multiples of 1/4), String. */
final class Literals {
    private Literals() {
    }

    /** SQL text of {@code v}; negative numbers in parentheses so "x - -1" never becomes a comment. */
    static String sql(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof String s) {
            return "'" + s.replace("'", "''") + "'";
        }
        String text;
        if (v instanceof Double d) {
            text = BigDecimal.valueOf(d).toPlainString();
            if (!text.contains(".")) {
                text = text + ".0";
            }
        } else {
            text = v.toString();
        }
        return text.startsWith("-") ? "(" + text + ")" : text;
    }

    static int compare(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return Double.compare(x.doubleValue(), y.doubleValue());
        }
        return a.toString().compareTo(b.toString());
    }
}
