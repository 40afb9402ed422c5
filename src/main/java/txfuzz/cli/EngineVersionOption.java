package txfuzz.cli;

import picocli.CommandLine.Option;

/**
 * --version: another version of an in-process engine than the bundled one. (The commands that take
 * it declare --help themselves: picocli's standard help options would claim --version for txfuzz's own.)
 */
final class EngineVersionOption {
    @Option(names = "--version", paramLabel = "V",
            description = "Version of an in-process engine (h2, hsqldb, derby, sqlite, duckdb) to test instead of the bundled one, e.g. 2.4.240"
                    + " for h2: its jar is fetched from Maven Central (kept in ~/.m2/repository) and loaded on its own."
                    + " 'txfuzz targets --versions' lists them; 'newest' is the newest release listed.")
    String version;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;
}
