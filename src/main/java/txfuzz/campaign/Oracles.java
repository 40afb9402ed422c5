package txfuzz.campaign;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import txfuzz.oracle.ExplicitOracle;
import txfuzz.oracle.isolation.IsolationOracle;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.wss.WssOracle;

/** The registry of oracles by command-line name. */
public final class Oracles {
    private static final Map<String, Supplier<Oracle>> FACTORIES = new LinkedHashMap<>();

    static {
        FACTORIES.put("wss", WssOracle::new);
        FACTORIES.put("explicit", ExplicitOracle::new);
        FACTORIES.put(IsolationOracle.NAME, IsolationOracle::new);
    }

    private Oracles() {
    }

    /** Whether these oracles need cases generated with rowId/wList instrumentation (the isolation oracle's history). */
    public static boolean needInstrumentation(List<String> names) {
        return names.stream().anyMatch(n -> n.trim().equals(IsolationOracle.NAME));
    }

    public static List<String> names() {
        return List.copyOf(FACTORIES.keySet());
    }

    /** Oracles by name; IllegalArgumentException naming the known ones for an unknown name. */
    public static List<Oracle> create(List<String> names) {
        List<Oracle> out = new ArrayList<>();
        if (names.isEmpty()) {
            throw new IllegalArgumentException("no oracle named; known: " + String.join(", ", names()));
        }
        for (String n : names) {
            Supplier<Oracle> f = FACTORIES.get(n.trim());
            if (f == null) {
                throw new IllegalArgumentException("unknown oracle '" + n.trim() + "'; known: " + String.join(", ", names()));
            }
            out.add(f.get());
        }
        return out;
    }
}
