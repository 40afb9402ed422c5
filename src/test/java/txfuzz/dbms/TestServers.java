package txfuzz.dbms;

import java.util.HashMap;
import java.util.Map;

/**
 * The test JVM's targets, for tests in any package: a server (PostgreSQL, MariaDB) is started once
 * per JVM and shared by every test class that asks for it (starting one costs seconds); it stops
 * when the JVM exits (the target's own shutdown hook). An in-process engine is opened anew each
 * time. Either way the caller closes what {@link #open} returns: for a shared server that close is a
 * no-op. Tests that kill or restart a server start their own instead.
 */
public final class TestServers {
    private static final Map<String, Target> SHARED = new HashMap<>();

    private TestServers() {
    }

    /** The shared target of a server engine ({@code postgres}, {@code mariadb}); never close it. */
    public static synchronized Target shared(String name) {
        if (!Targets.engine(name).server()) {
            throw new IllegalArgumentException(name + " runs in process: nothing to share");
        }
        return SHARED.computeIfAbsent(name, Targets::create);
    }

    /** A target of {@code name} to close when done: a new in-process one, or the shared server behind a no-op close. */
    public static Target open(String name) {
        if (!Targets.engine(name).server()) {
            return Targets.create(name);
        }
        return new DelegatingTarget(shared(name)) {
            @Override
            public void close() {
                // the shared server outlives the test class
            }
        };
    }
}
