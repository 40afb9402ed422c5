package txfuzz.campaign;

import java.util.Optional;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.dbms.versions.MavenArtifact;
import txfuzz.dbms.versions.Releases;

/**
 * Which build of the engine a run tested. The engine's own version string says what it is; the Maven
 * version says how to get exactly that build again ({@code --version}), which the engine's string
 * does not always (DuckDB 1.4.4 is the artifact 1.4.4.0, H2's string carries a date).
 *
 * @param version      the version as the engine reports it (summary.json's top-level {@code version})
 * @param source       {@code default} (the version pom.xml names), {@code maven-central} (another version, fetched),
 *                     {@code url} (a server txfuzz did not start) or {@code server-home} (a local installation)
 * @param artifact     the Maven artifact the engine came from, {@code group:artifact}; null for {@code url} and {@code server-home}
 * @param mavenVersion that artifact's version; null for {@code url} and {@code server-home}
 * @param asked        what {@code --version} said (e.g. "15", "newest"); null when not given
 */
public record EngineBuild(String version, String source, String artifact, String mavenVersion, String asked) {

    /**
     * Only what the engine reports, for a campaign whose options are not known (started from code
     * without {@link Campaign#describedBy}): guessing "the bundled artifact" would be wrong for a
     * target opened at another version.
     */
    public static EngineBuild reportedOnly(String reported) {
        return new EngineBuild(reported, null, null, null, null);
    }

    /** The build behind a target opened for {@code dbms} with {@code options} that reports {@code reported}. */
    public static EngineBuild of(String dbms, TargetOptions options, String reported) {
        if (options.url() != null) {
            return new EngineBuild(reported, "url", null, null, null);
        }
        if (options.serverHome() != null) {
            return new EngineBuild(reported, "server-home", null, null, null);
        }
        Optional<MavenArtifact> artifact = Targets.exists(dbms) ? Targets.engine(dbms).artifact() : Optional.empty();
        if (artifact.isEmpty()) {
            return new EngineBuild(reported, "default", null, null, options.version());
        }
        String bundled = BundledVersions.of(dbms);
        String maven;
        try {
            // the same choice the target made when it opened ("15" → the newest 15.x), so the same answer
            maven = Releases.pick(artifact.get(), options.version(), bundled);
        } catch (IllegalArgumentException e) {
            maven = options.version(); // cannot happen once the target opened; the words the user gave are the best left
        }
        return new EngineBuild(reported, bundled.equals(maven) ? "default" : "maven-central", artifact.get().toString(), maven, options.version());
    }

    /** What a case file records of this build: the engine's own words, and the Maven version that gives it again. */
    public txfuzz.model.EngineVersion forCase(String dbms) {
        return new txfuzz.model.EngineVersion(dbms, version, mavenVersion);
    }
}
