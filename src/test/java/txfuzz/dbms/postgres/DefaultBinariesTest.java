package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.dbms.versions.MavenCentral;

/**
 * The default PostgreSQL binaries come the way every other version does (--version): from the local
 * Maven repository, else Maven Central; not from the class path, so the shaded jar need not carry them.
 */
class DefaultBinariesTest {
    private static final String DEFAULT = BundledVersions.of("postgres");
    private static final String UNREACHABLE = "http://127.0.0.1:1/maven2/";

    @Test
    void theDefaultBinariesAreTheLocalRepositorysJarAsForAnyVersion() {
        Path jar = Binaries.bundled().jar();
        assertEquals(MavenCentral.get().jar(Binaries.ARTIFACT, DEFAULT), jar);
        assertTrue(jar.startsWith(MavenCentral.get().localRepository()), jar + " lies outside " + MavenCentral.get().localRepository());
    }

    @Test
    void onceInTheLocalRepositoryTheyNeedNoMavenCentral() {
        Binaries offline = Binaries.from(MavenCentral.at(MavenCentral.get().localRepository(), UNREACHABLE), DEFAULT);
        assertTrue(Files.isRegularFile(offline.jar()), offline.jar().toString());
    }

    @Test
    void neitherInTheLocalRepositoryNorReachableIsOneLineSayingSo(@TempDir Path emptyLocalRepository, @TempDir Path home) throws Exception {
        Binaries absent = Binaries.from(MavenCentral.at(emptyLocalRepository, UNREACHABLE), DEFAULT);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> absent.prepare(home));
        assertTrue(e.getMessage().startsWith("cannot get " + Binaries.ARTIFACT.coordinates(DEFAULT) + " from Maven Central (offline?): "), e.getMessage());
        assertTrue(e.getMessage().contains(emptyLocalRepository.toString()) && e.getMessage().contains(UNREACHABLE), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        try (var left = Files.list(home)) {
            assertEquals(0, left.count(), "nothing is unpacked");
        }
    }
}
