package txfuzz.campaign;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Which txfuzz made a run: the pom's version, filtered into a resource at build time (as the bundled
 * engine versions are), and the git commit the launcher found the checkout at. The commit is asked
 * of git at launch rather than baked into the jar: {@code ./txfuzz} rebuilds the jar whenever a source
 * is newer than it, so the checkout's HEAD is what the jar was built from, while a commit recorded at
 * build time would go stale when a commit changes no source.
 *
 * @param version   txfuzz's version, e.g. "0.1.0-SNAPSHOT"
 * @param gitCommit the full commit id; null when not started by {@code ./txfuzz} from a git checkout
 * @param gitDirty  whether the sources the jar is built from (src/main, pom.xml) differ from that commit; null when the commit is unknown
 */
public record BuildInfo(String version, String gitCommit, Boolean gitDirty) {
    /** The system properties {@code ./txfuzz} sets (see the launcher). */
    static final String COMMIT_PROPERTY = "txfuzz.gitCommit";
    static final String DIRTY_PROPERTY = "txfuzz.gitDirty";

    private static final BuildInfo CURRENT = load();

    public static BuildInfo current() {
        return CURRENT;
    }

    private static BuildInfo load() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("/txfuzz/build.properties")) {
            if (in == null) {
                throw new IllegalStateException("txfuzz/build.properties is missing from the build");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return from(p, System.getProperty(COMMIT_PROPERTY), System.getProperty(DIRTY_PROPERTY));
    }

    /** From the build's resource and what the launcher passed (either may be missing). */
    static BuildInfo from(Properties resource, String commit, String dirty) {
        // a commit id and nothing else: the property comes from a shell script and ends up in reports
        boolean known = commit != null && commit.matches("[0-9a-f]{40}([0-9a-f]{24})?");
        return new BuildInfo(resource.getProperty("version"), known ? commit : null, known && dirty != null ? Boolean.valueOf(dirty) : null);
    }
}
