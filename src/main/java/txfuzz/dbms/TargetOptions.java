package txfuzz.dbms;

/**
 * Which engine to test and how to reach it. An in-process engine takes only {@code version}; a server
 * target connects to {@code url}, or starts its own server (from the Maven artifact at {@code version},
 * or from the installation in {@code serverHome}) and shuts it down on close.
 *
 * @param url        JDBC URL of an existing server, or null
 * @param user       user name for {@code url}, or null
 * @param password   password for {@code url} (taken from an environment variable, never logged), or null
 * @param version    the engine version to test instead of the bundled one: an in-process engine's Maven version
 *                   (e.g. "2.4.240"), a server's binaries (e.g. "15.10", or "15" for the newest 15.x), "newest"; or null
 * @param serverHome a local installation or build tree to start the server from (PostgreSQL's or MariaDB's), or null
 * @param settings   the engine's settings to apply ({@link Engine#settings()}, in its spellings), in order; empty: none
 */
public record TargetOptions(String url, String user, String password, String version, String serverHome, java.util.Map<String, String> settings) {
    public TargetOptions {
        settings = settings == null ? java.util.Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(settings));
    }

    public TargetOptions(String url, String user, String password, String version, String serverHome) {
        this(url, user, password, version, serverHome, null);
    }

    public TargetOptions(String url, String user, String password, String version) {
        this(url, user, password, version, null);
    }

    public static TargetOptions none() {
        return new TargetOptions(null, null, null, null, null);
    }

    /** The engine at {@code version} (null: the bundled version). */
    public static TargetOptions version(String version) {
        return new TargetOptions(null, null, null, version, null);
    }

    /** These options with the engine version {@code v} (null: the bundled one). */
    public TargetOptions withVersion(String v) {
        return new TargetOptions(url, user, password, v, serverHome, settings);
    }

    /** These options with the engine settings {@code s} (in the engine's spellings). */
    public TargetOptions withSettings(java.util.Map<String, String> s) {
        return new TargetOptions(url, user, password, version, serverHome, s);
    }

    /** Whether no server option is set (the engine version is no server option). */
    public boolean isEmpty() {
        return url == null && user == null && password == null && serverHome == null;
    }

    /**
     * For a server target: IllegalArgumentException when the options contradict each other (a server
     * reached by URL has its own version and installation).
     */
    public void checkServerOptions() {
        if (url == null && (user != null || password != null)) {
            throw new IllegalArgumentException("a user and password apply only to a server given by --url");
        }
        if (url != null && version != null) {
            throw new IllegalArgumentException("--version applies only when txfuzz starts the server; with --url the server's own version is used");
        }
        if (url != null && serverHome != null) {
            throw new IllegalArgumentException("--server-home applies only when txfuzz starts the server, not with --url");
        }
        if (serverHome != null && version != null) {
            throw new IllegalArgumentException("--server-home starts the installation's own version; --version does not apply to it");
        }
    }

    @Override
    public String toString() {
        return "TargetOptions[url=" + url + ", user=" + user + ", password=" + (password == null ? "none" : "***") + ", version=" + version
                + ", serverHome=" + serverHome + (settings.isEmpty() ? "" : ", settings=" + settings) + "]";
    }
}
