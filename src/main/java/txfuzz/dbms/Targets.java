package txfuzz.dbms;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import txfuzz.dbms.derby.DerbyEngine;
import txfuzz.dbms.duckdb.DuckdbEngine;
import txfuzz.dbms.h2.H2Engine;
import txfuzz.dbms.hsqldb.HsqldbEngine;
import txfuzz.dbms.mariadb.MariadbEngine;
import txfuzz.dbms.postgres.PostgresEngine;
import txfuzz.dbms.sqlite.SqliteEngine;

/**
 * The registry: every DBMS's {@link Engine} (its static description) by command-line name, and
 * live {@link Target}s opened from them. Looking a description up starts nothing.
 */
public final class Targets {
    private static final Map<String, Engine> ENGINES = new LinkedHashMap<>();
    /** The engine commands test when told none (a constant, for picocli's defaults). */
    public static final String DEFAULT = "h2";

    static {
        for (Engine e : List.of(new H2Engine(), new HsqldbEngine(), new DerbyEngine(), new SqliteEngine(), new DuckdbEngine(),
                new PostgresEngine(), new MariadbEngine())) {
            ENGINES.put(e.name(), e);
        }
    }

    private Targets() {
    }

    /**
     * The DBMS whose own concurrency tests are written in {@code format} (PostgreSQL's isolation tester, MariaDB's
     * mysqltest), the one {@code txfuzz import} runs them on unless told otherwise; for a format of no engine, the
     * default DBMS of {@code run}.
     */
    public static String nativeTo(txfuzz.model.CaseSource.Format format) {
        RegressionTestFormat own = switch (format) {
            case ISOLATION_SPEC -> RegressionTestFormat.ISOLATION_TESTER_SPEC;
            case MYSQLTEST -> RegressionTestFormat.MYSQLTEST;
            case SCHEDULE -> null;
        };
        return ENGINES.values().stream().filter(e -> own != null && e.regressionTestFormat().orElse(null) == own).map(Engine::name).findFirst()
                .orElse(DEFAULT);
    }

    public static List<String> names() {
        return List.copyOf(ENGINES.keySet());
    }

    public static boolean exists(String name) {
        return ENGINES.containsKey(name);
    }

    /** Every description, in the order of {@link #names()}. */
    public static List<Engine> engines() {
        return List.copyOf(ENGINES.values());
    }

    /** The static description of {@code name}; IllegalArgumentException naming the known ones when it is unknown. */
    public static Engine engine(String name) {
        Engine e = ENGINES.get(name);
        if (e == null) {
            throw new IllegalArgumentException("unknown DBMS '" + name + "'; known: " + String.join(", ", names()));
        }
        return e;
    }

    public static Target create(String name) {
        return create(name, TargetOptions.none());
    }

    /**
     * A new live target. IllegalArgumentException naming the known targets when {@code name} is
     * unknown, or saying what is wrong with {@code options}.
     */
    public static Target create(String name, TargetOptions options) {
        Engine engine = engine(name);
        TargetOptions o = options == null ? TargetOptions.none() : options;
        return engine.open(o.withSettings(Engine.checkSettings(engine, o.settings())));
    }
}
