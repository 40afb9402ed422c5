package txfuzz.target;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import txfuzz.target.h2.H2Target;

/** The registry of targets by command-line name. */
public final class Targets {
    private static final Map<String, Supplier<Target>> FACTORIES = new LinkedHashMap<>();

    static {
        FACTORIES.put("h2", H2Target::new);
        FACTORIES.put("hsqldb", txfuzz.target.hsqldb.HsqldbTarget::new);
        FACTORIES.put("derby", txfuzz.target.derby.DerbyTarget::new);
        FACTORIES.put("sqlite", txfuzz.target.sqlite.SqliteTarget::new);
        FACTORIES.put("duckdb", txfuzz.target.duckdb.DuckdbTarget::new);
    }

    private Targets() {
    }

    public static List<String> names() {
        return List.copyOf(FACTORIES.keySet());
    }

    public static boolean exists(String name) {
        return FACTORIES.containsKey(name);
    }

    /** A new target; throws IllegalArgumentException naming the known targets when {@code name} is unknown. */
    public static Target create(String name) {
        Supplier<Target> f = FACTORIES.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown DBMS '" + name + "'; known: " + String.join(", ", names()));
        }
        return f.get();
    }
}
