package txfuzz.dbms;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import txfuzz.dbms.derby.DerbyTarget;
import txfuzz.dbms.duckdb.DuckdbTarget;
import txfuzz.dbms.h2.H2Target;
import txfuzz.dbms.hsqldb.HsqldbTarget;
import txfuzz.dbms.sqlite.SqliteTarget;

/** The registry of targets by command-line name. */
public final class Targets {
    private static final Map<String, Function<TargetOptions, Target>> FACTORIES = new LinkedHashMap<>();

    static {
        embedded("h2", H2Target::new);
        embedded("hsqldb", HsqldbTarget::new);
        embedded("derby", DerbyTarget::new);
        embedded("sqlite", SqliteTarget::new);
        embedded("duckdb", DuckdbTarget::new);
        FACTORIES.put("postgres", txfuzz.dbms.postgres.PostgresTarget::new);
        FACTORIES.put("mariadb", txfuzz.dbms.mariadb.MariadbTarget::new);
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
