package txfuzz.dbms;

/**
 * How to reach a server target. With no {@code url}, a server target starts its own server (from
 * Maven artifacts) and shuts it down on close; embedded targets take no options.
 *
 * @param url           JDBC URL of an existing server, or null
 * @param user          user name for {@code url}, or null
 * @param password      password for {@code url} (taken from an environment variable, never logged), or null
 * @param serverVersion version of the server to start when there is no URL (e.g. "15"), or null for the default
 */
public record TargetOptions(String url, String user, String password, String serverVersion) {
    public static TargetOptions none() {
        return new TargetOptions(null, null, null, null);
    }

    public boolean isEmpty() {
        return url == null && user == null && password == null && serverVersion == null;
    }

    @Override
    public String toString() {
        return "TargetOptions[url=" + url + ", user=" + user + ", password=" + (password == null ? "none" : "***") + ", serverVersion="
                + serverVersion + "]";
    }
}
