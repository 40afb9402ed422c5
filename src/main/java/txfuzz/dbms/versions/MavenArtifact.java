package txfuzz.dbms.versions;

/** An artifact on Maven Central whose versions are versions of an engine (a driver jar, or a server's binaries). */
public record MavenArtifact(String groupId, String artifactId) {
    public String coordinates(String version) {
        return groupId + ":" + artifactId + ":" + version;
    }

    @Override
    public String toString() {
        return groupId + ":" + artifactId;
    }
}
