package txfuzz.model;

import java.math.BigDecimal;
import java.math.MathContext;

/**
 * Normalises JDBC values to strings so results compare across engines and runs: integers exactly,
 * floating point to 12 significant digits (engines sum and convert doubles differently).
 */
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
            return bd.scale() <= 0 || bd.stripTrailingZeros().scale() <= 0 ? bd.toBigInteger().toString() : number(bd);
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte
                || value instanceof java.math.BigInteger) {
            return value.toString(); // integers compare exactly
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
