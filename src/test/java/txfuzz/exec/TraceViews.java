package txfuzz.exec;

import java.util.Arrays;
import java.util.List;

/** Compact views of traces and states for assertions in executor tests. */
public final class TraceViews {
    private TraceViews() {
    }

    /** The actual schedule as "T1.2" refs, a blocked-then-resumed statement marked "T1.2*". */
    public static List<String> scheduleOf(Trace trace) {
        return trace.schedule().stream().map(e -> e.ref() + (e.blocked() ? "*" : "")).toList();
    }

    /** Expected table rows written as "1,0", "2,5": each string one row, values comma-separated. */
    public static List<List<String>> rows(String... rows) {
        return Arrays.stream(rows).map(r -> List.of(r.split(","))).toList();
    }
}
