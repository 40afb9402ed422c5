package txfuzz.oracle.diff;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Orders engine versions as their first dotted number says ("Engine 15.18 on x86_64" after "15.17"). */
final class Versions {
    private static final Pattern DOTTED = Pattern.compile("\\d+(\\.\\d+)*");

    private Versions() {
    }

    static int compare(String a, String b) {
        String[] x = dotted(a);
        String[] y = dotted(b);
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            long p = i < x.length ? Long.parseLong(x[i]) : 0;
            long q = i < y.length ? Long.parseLong(y[i]) : 0;
            if (p != q) {
                return Long.compare(p, q);
            }
        }
        return 0;
    }

    private static String[] dotted(String v) {
        Matcher m = DOTTED.matcher(v == null ? "" : v);
        return m.find() ? m.group().split("\\.") : new String[0];
    }
}
