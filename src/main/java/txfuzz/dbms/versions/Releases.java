package txfuzz.dbms.versions;

import java.util.List;

/**
 * Which Maven version of an engine's artifact a user's {@code --version} names: the bundled one for
 * none, the newest listed release for {@value EngineDrivers#NEWEST}, a listed version as it is, and
 * otherwise the newest release it is a prefix of ("15" and "15.10" for PostgreSQL's binaries 15.19.0
 * and 15.10.0), so that users may write an engine version the way the engine spells it.
 */
public final class Releases {
    private Releases() {
    }

    /** IllegalArgumentException with a one-line reason when nothing listed matches {@code asked}. */
    public static String pick(MavenArtifact artifact, String asked, String bundled) {
        if (asked == null || asked.equals(bundled)) {
            return bundled;
        }
        if (asked.isBlank() || !asked.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("'" + asked + "' is no version of " + artifact);
        }
        MavenCentral.Listing listing = MavenCentral.get().versions(artifact);
        List<String> releases = listing.releases();
        if (EngineDrivers.NEWEST.equals(asked)) {
            if (releases.isEmpty()) {
                throw new IllegalArgumentException("no release of " + artifact + " is listed" + (listing.problem() == null ? "" : " (" + listing.problem() + ")"));
            }
            return releases.get(releases.size() - 1);
        }
        if (listing.versions().contains(asked) || !asked.matches("[0-9]+(\\.[0-9]+)*")) {
            return asked; // resolving it says whether it exists
        }
        for (int i = releases.size() - 1; i >= 0; i--) {
            if (releases.get(i).startsWith(asked + ".")) {
                return releases.get(i);
            }
        }
        if (bundled.startsWith(asked + ".")) {
            return bundled; // offline, or not listed: what txfuzz ships matches
        }
        return asked; // resolving it says that it does not exist (or that Maven Central cannot be reached)
    }
}
