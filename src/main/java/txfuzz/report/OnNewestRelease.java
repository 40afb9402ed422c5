package txfuzz.report;

/**
 * What the newest release of the engine did with a bug candidate's case found on an older one,
 * replayed twice there.
 *
 * @param version the newest release's Maven version (as {@code --version} takes it)
 * @param outcome "shows it", "does not show it", "flaky (the two runs disagree)" or "cannot run the case"
 * @param shows   both runs showed a bug candidate
 * @param clean   neither run did
 * @param detail  each run's first bug candidate and the version as the engine reports it, or why it could not run
 */
public record OnNewestRelease(String version, String outcome, boolean shows, boolean clean, String detail) {
    /** The report's line about it, right under the title: a maintainer checks this first. */
    String reportLine() {
        String replay = "`txfuzz replay case.json --version newest`";
        if (shows) {
            return "> **Still shows on the newest release** (" + version + ", replayed twice: " + detail + "); found on an older one.";
        }
        if (clean) {
            return "> **Does not show on the newest release** (" + version + ", replayed twice: " + detail + "): probably fixed there."
                    + " Check the release notes before reporting it; " + replay + " repeats the check.";
        }
        return "> **Newest release not decided** (" + version + ": " + outcome + "; " + detail + "). " + replay + " repeats the check.";
    }
}
