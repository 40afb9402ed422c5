package txfuzz.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Targets;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.dbms.versions.MavenArtifact;
import txfuzz.dbms.versions.MavenCentral;
import txfuzz.model.IsolationLevel;

/** Lists the DBMSs from their descriptions: starts no server and no embedded engine. */
@Command(name = "targets", mixinStandardHelpOptions = true, description = "List the DBMSs txfuzz can test, with the version it uses by default,"
        + " their isolation levels and modes. Starts nothing.")
final class TargetsCommand implements Callable<Integer> {
    @Option(names = "--versions", description = "Per DBMS, the default version and the versions Maven Central lists (the engine's jar"
            + " for in-process engines, which --version loads; the server binaries for postgres and mariadb). Asks Maven Central; starts nothing.")
    boolean versions;

    @Override
    public Integer call() {
        if (versions) {
            return listVersions();
        }
        for (Engine e : Targets.engines()) {
            System.out.printf("%-8s %-36s levels: %-60s modes: %s%n", e.name(), e.defaultVersion(),
                    String.join(" ", e.isolationLevels().stream().map(IsolationLevel::name).toList()), String.join(" ", e.modes()));
        }
        return Main.OK;
    }

    private static Integer listVersions() {
        for (Engine e : Targets.engines()) {
            System.out.printf("%s: default %s (%s)%n", e.name(), BundledVersions.of(e.name()), e.defaultVersion());
            MavenArtifact artifact = e.artifact().orElse(null);
            if (artifact == null) {
                continue;
            }
            MavenCentral.Listing listing = MavenCentral.get().versions(artifact);
            String where = listing.problem() == null ? "on Maven Central" : "as Maven Central last listed them (kept in the local repository)";
            String what = e.server()
                    ? "of the server binaries " + where + " (" + artifact + "; --version V starts one)"
                    : where + " (" + artifact + "; --version V loads one)";
            if (listing.problem() != null) {
                System.out.printf("  note: Maven Central not reached (offline?): %s%n", Main.oneLine(listing.problem()));
            }
            if (!listing.versions().isEmpty()) {
                System.out.printf("  %d versions %s:%n%s%n", listing.versions().size(), what, wrap(listing.versions()));
            }
        }
        return Main.OK;
    }

    /** Versions, oldest first, as indented lines of at most about 110 characters. */
    private static String wrap(List<String> versions) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder("   ");
        for (String v : versions) {
            if (line.length() + v.length() > 110) {
                out.append(line).append('\n');
                line = new StringBuilder("   ");
            }
            line.append(' ').append(v);
        }
        return out.append(line).toString();
    }
}
