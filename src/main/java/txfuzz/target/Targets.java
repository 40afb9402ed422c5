package txfuzz.target;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import txfuzz.target.derby.DerbyTarget;
import txfuzz.target.duckdb.DuckdbTarget;
import txfuzz.target.h2.H2Target;
import txfuzz.target.hsqldb.HsqldbTarget;
import txfuzz.target.sqlite.SqliteTarget;

/** The registry of targets by command-line name. */
public final class Targets {
    private static final Map<String, Function<TargetOptions, Target>> FACTORIES = new LinkedHashMap<>();

    static {
        embedded("h2", H2Target::new);
        embedded("hsqldb", HsqldbTarget::new);
        embedded("derby", DerbyTarget::new);
        embedded("sqlite", SqliteTarget::new);
        embedded("duckdb", DuckdbTarget::new);
        FACTORIES.put("postgres", txfuzz.target.postgres.PostgresTarget::new);
        FACTORIES.put("mariadb", txfuzz.target.mariadb.MariadbTarget::new);
    }

    private Targets() {
    }

    /** An in-process engine: it takes no server options. */
    private static void embedded(String name, Supplier<Target> factory) {
        FACTORIES.put(name, options -> {
            if (!options.isEmpty()) {
                throw new IllegalArgumentException(name + " runs in process: --url, --user and --server-version do not apply to it");
            }
            return factory.get();
        });
    }

    public static List<String> names() {
        return List.copyOf(FACTORIES.keySet());
    }

    public static boolean exists(String name) {
        return FACTORIES.containsKey(name);
    }

    public static Target create(String name) {
        return create(name, TargetOptions.none());
    }

    /**
     * A new target. IllegalArgumentException naming the known targets when {@code name} is unknown,
     * or saying what is wrong with {@code options}.
     */
    public static Target create(String name, TargetOptions options) {
        Function<TargetOptions, Target> f = FACTORIES.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown DBMS '" + name + "'; known: " + String.join(", ", names()));
        }
        return f.apply(options);
    }
}
