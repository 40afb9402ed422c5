package txfuzz.campaign;

import java.util.List;
import java.util.Optional;
import txfuzz.dbms.Engine;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.dbms.versions.EngineDrivers;
import txfuzz.dbms.versions.MavenArtifact;
import txfuzz.dbms.versions.Releases;
import txfuzz.model.TestCase;
import txfuzz.oracle.Oracle;

/**
 * For a campaign on an older release than the newest Maven Central lists: replays each unique bug
 * candidate on the newest release (twice, as {@code replay --version newest} would), so its report
 * says in its first lines whether the bug is still there — a maintainer closes a report of a bug
 * that is already fixed at once. Each check starts the newest version for it (a server too) and
 * stops it after.
 *
 * @param newest the newest release's Maven version
 */
public record NewestCheck(String newest) {
    /**
     * The check for a campaign on {@code dbms} with {@code options}, or empty when the version under
     * test is the newest, or unknown as a release (--url, --server-home), or Maven Central cannot say.
     */
    public static Optional<NewestCheck> forRun(String dbms, TargetOptions options) {
        Engine engine = Targets.engine(dbms);
        Optional<MavenArtifact> artifact = engine.artifact();
        if (artifact.isEmpty() || options.url() != null || options.serverHome() != null) {
            return Optional.empty();
        }
        String bundled = BundledVersions.of(dbms);
        try {
            String tested = Releases.pick(artifact.get(), options.version(), bundled);
            String newest = Releases.pick(artifact.get(), EngineDrivers.NEWEST, bundled);
            return tested.equals(newest) ? Optional.empty() : Optional.of(new NewestCheck(newest));
        } catch (IllegalArgumentException offline) {
            return Optional.empty();
        }
    }

    /** What the newest release does with {@code c}. */
    public VersionReplay replay(TestCase c, List<String> oracles) {
        return VersionReplay.at(c, newest, oracles);
    }
}
