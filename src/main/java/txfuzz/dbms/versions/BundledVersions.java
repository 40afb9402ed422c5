package txfuzz.dbms.versions;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The Maven versions txfuzz uses of each engine unless told another (--version), per DBMS name:
 * pom.xml's, filtered into a resource at build time, so the pom stays the one place they are written.
 * The in-process engines' jars are on the class path (bundled in the jar); the servers' binaries are
 * resolved from the local Maven repository, else Maven Central, like any other version.
 */
public final class BundledVersions {
    private static final Properties VERSIONS = load();

    private BundledVersions() {
    }

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = BundledVersions.class.getResourceAsStream("/txfuzz/bundled-versions.properties")) {
            if (in == null) {
                throw new IllegalStateException("txfuzz/bundled-versions.properties is missing from the build");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    /**
     * The local repository of the Maven that built txfuzz (its settings.xml's, or -Dmaven.repo.local), where
     * that build put the server binaries; empty when not recorded (a build without resource filtering).
     */
    static java.util.Optional<java.nio.file.Path> buildLocalRepository() {
        String recorded = VERSIONS.getProperty("maven.repo.local", "");
        return recorded.isBlank() || recorded.startsWith("${") ? java.util.Optional.empty() : java.util.Optional.of(java.nio.file.Path.of(recorded));
    }

    /** The default Maven version of DBMS {@code name}'s artifact, e.g. "2.3.232" for h2. */
    public static String of(String name) {
        String v = VERSIONS.getProperty(name);
        if (v == null) {
            throw new IllegalArgumentException("no bundled version recorded for " + name);
        }
        return v;
    }
}
