package txfuzz.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;
import txfuzz.dbms.TargetOptions;

/** How to reach a server DBMS: start one (default: the bundled binaries; or a local installation) or use an existing one by URL. */
final class ServerOptions {
    @Option(names = "--url", description = "JDBC URL of an existing server (postgres, mariadb). Without it, txfuzz starts its own.")
    String url;

    @Option(names = "--user", description = "User for --url.")
    String user;

    @Option(names = "--password-env", defaultValue = "TXFUZZ_PASSWORD", paramLabel = "VAR",
            description = "Environment variable holding the password for --url (never echoed). Default: ${DEFAULT-VALUE}.")
    String passwordEnv;

    @Option(names = "--server-version", paramLabel = "V", description = "The same as --version, for a server txfuzz starts (e.g. 15 for the newest"
            + " PostgreSQL 15.x binaries).")
    String serverVersion;

    @Option(names = "--server-home", paramLabel = "DIR", description = "Start the server from this local installation or build tree instead of"
            + " the default version's binaries: PostgreSQL's (bin/initdb, bin/pg_ctl, bin/postgres) or MariaDB's (mariadbd and mariadb-install-db)."
            + " Its data directory stays txfuzz's own, private and deleted at exit.")
    Path serverHome;

    /** The options with the engine version {@code version} (--version; --server-version says the same for servers). */
    TargetOptions toTargetOptions(String version) {
        if (url == null && user != null) {
            throw new Main.UserError("--user needs --url");
        }
        if (version != null && serverVersion != null && !version.equals(serverVersion)) {
            throw new Main.UserError("--version " + version + " and --server-version " + serverVersion + " disagree; give one");
        }
        if (serverHome != null && !Files.isDirectory(serverHome)) {
            throw new Main.UserError("--server-home " + serverHome + " is not a directory");
        }
        String password = url == null ? null : System.getenv(passwordEnv);
        String home = serverHome == null ? null : serverHome.toAbsolutePath().normalize().toString();
        TargetOptions o = new TargetOptions(url, user, password, version != null ? version : serverVersion, home);
        try {
            o.checkServerOptions();
        } catch (IllegalArgumentException e) {
            throw new Main.UserError(e.getMessage());
        }
        return o;
    }
}
