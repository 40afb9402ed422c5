package txfuzz.dbms;

/**
 * How to reach a server target. With no {@code url}, a server target starts its own server (from
 * Maven artifacts) and shuts it down on close; embedded targets take no options.
 *
 * @param url           JDBC URL of an existing server, or null
 * @param user          user name for {@code url}, or null
 * @param password      password for {@code url} (taken from an environment variable, never logged), or null
 * @param serverVersion version of the server to start when there is no URL (e.g. "15"), or null for the default
 * @param version       an in-process engine's Maven version to load instead of the bundled one (e.g. "2.4.240"), or null
 */
public record TargetOptions(String url, String user, String password, String serverVersion, String version) {
    public TargetOptions(String url, String user, String password, String serverVersion) {
        this(url, user, password, serverVersion, null);
    }

    public static TargetOptions none() {
        return new TargetOptions(null, null, null, null, null);
    }

    /** The bundled in-process engine at {@code version} (null: the bundled version). */
    public static TargetOptions version(String version) {
        return new TargetOptions(null, null, null, null, version);
    }

    /** These options with the in-process engine version {@code v} (null: the bundled one). */
    public TargetOptions withVersion(String v) {
        return new TargetOptions(url, user, password, serverVersion, v);
    }

    /** Whether no server option is set (the engine version is no server option). */
    public boolean isEmpty() {
        return url == null && user == null && password == null && serverVersion == null;
    }

    @Override
    public String toString() {
        return "TargetOptions[url=" + url + ", user=" + user + ", password=" + (password == null ? "none" : "***") + ", serverVersion="
                + serverVersion + ", version=" + version + "]";
    }
}
