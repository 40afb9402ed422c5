package txfuzz.cli;

import picocli.CommandLine.Option;
import txfuzz.dbms.TargetOptions;

/** How to reach a server DBMS: start one (default) or use an existing one by URL. */
final class ServerOptions {
    @Option(names = "--url", description = "JDBC URL of an existing server (postgres, mariadb). Without it, txfuzz starts its own.")
    String url;

    @Option(names = "--user", description = "User for --url.")
    String user;

    @Option(names = "--password-env", defaultValue = "TXFUZZ_PASSWORD", paramLabel = "VAR",
            description = "Environment variable holding the password for --url (never echoed). Default: ${DEFAULT-VALUE}.")
    String passwordEnv;

    @Option(names = "--server-version", description = "Version of the server txfuzz starts when there is no --url (e.g. 15 for PostgreSQL).")
    String serverVersion;

    TargetOptions toTargetOptions() {
        if (url == null && user != null) {
            throw new Main.UserError("--user needs --url");
        }
        if (url != null && serverVersion != null) {
            throw new Main.UserError("--server-version applies only when txfuzz starts the server; with --url the server's own version is used");
        }
        String password = url == null ? null : System.getenv(passwordEnv);
        return new TargetOptions(url, user, password, serverVersion);
    }
}
