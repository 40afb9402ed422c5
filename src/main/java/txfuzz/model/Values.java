package txfuzz.model;

import java.math.BigDecimal;
import java.math.MathContext;

/** Normalises JDBC values to strings so results compare across engines and runs. */
public final class Values {
    private static final MathContext DIGITS = new MathContext(12);

    private Values() {
    }

    public static String normalise(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return Double.toString(d);
            }
            return number(new BigDecimal(d));
        }
        if (value instanceof BigDecimal bd) {
            return number(bd);
        }
        if (value instanceof Number n) {
            return number(new BigDecimal(n.toString()));
        }
        if (value instanceof Boolean b) {
            return b ? "1" : "0";
        }
        if (value instanceof byte[] bytes) {
            StringBuilder sb = new StringBuilder("x'");
            for (byte x : bytes) {
                sb.append(String.format("%02x", x));
            }
            return sb.append('\'').toString();
        }
        return value.toString();
    }

    private static String number(BigDecimal bd) {
        BigDecimal r = bd.round(DIGITS).stripTrailingZeros();
        if (r.signum() == 0) {
            return "0";
        }
        return r.toPlainString();
    }
}
