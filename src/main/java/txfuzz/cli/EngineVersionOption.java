package txfuzz.cli;

import picocli.CommandLine.Option;

/**
 * --version: another version of the engine than the bundled one. (The commands that take
 * it declare --help themselves: picocli's standard help options would claim --version for txfuzz's own.)
 */
final class EngineVersionOption {
    @Option(names = "--version", paramLabel = "V",
            description = "Engine version to test instead of the default one, fetched from Maven Central (kept in ~/.m2/repository):"
                    + " an in-process engine's jar (e.g. 2.4.240 for h2), loaded on its own; or the server binaries txfuzz starts"
                    + " (e.g. 15.10 for postgres, 10.11.5 for mariadb; 15 picks the newest 15.x). 'newest' is the newest release listed;"
                    + " 'txfuzz targets --versions' lists them.")
    String version;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;
}
