package txfuzz.model;

/**
 * The engine a case was found (or reduced) on, as that engine said at run time: a case file says which
 * build to replay it on, and {@code bisect} starts from it.
 *
 * @param dbms    the target's name, e.g. "h2"
 * @param version the engine's own name and version, e.g. "H2 2.3.232 (2024-08-11)"
 * @param release the Maven version that gives exactly that build again ({@code --version}); null when the
 *                engine did not come from Maven Central (a server given by --url or --server-home)
 */
public record EngineVersion(String dbms, String version,
                            @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) String release) {
    public EngineVersion {
        if (dbms == null || version == null) {
            throw new IllegalArgumentException("the case's 'engine' needs 'dbms' and 'version'");
        }
    }
}
