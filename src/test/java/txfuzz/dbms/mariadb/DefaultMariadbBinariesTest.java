package txfuzz.dbms.mariadb;

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
 * The default MariaDB binaries come the way every other version does (--version): from the local
 * Maven repository, else Maven Central; not from the class path, so the shaded jar need not carry them.
 */
class DefaultMariadbBinariesTest {
    private static final String DEFAULT = BundledVersions.of("mariadb");
    private static final String UNREACHABLE = "http://127.0.0.1:1/maven2/";

    @Test
    void theDefaultBinariesAreTheLocalRepositorysJarAsForAnyVersion() {
        Path jar = MariadbBinaries.location(DEFAULT).jar();
        assertEquals(MavenCentral.get().jar(MariadbBinaries.ARTIFACT, DEFAULT), jar);
        assertTrue(jar.startsWith(MavenCentral.get().localRepository()), jar + " lies outside " + MavenCentral.get().localRepository());
    }

    @Test
    void onceInTheLocalRepositoryTheyNeedNoMavenCentral() {
        Path jar = MariadbBinaries.location(MavenCentral.at(MavenCentral.get().localRepository(), UNREACHABLE), DEFAULT).jar();
        assertTrue(Files.isRegularFile(jar), jar.toString());
    }

    @Test
    void neitherInTheLocalRepositoryNorReachableIsOneLineSayingSo(@TempDir Path emptyLocalRepository) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MariadbBinaries.location(MavenCentral.at(emptyLocalRepository, UNREACHABLE), DEFAULT));
        assertTrue(e.getMessage().startsWith("cannot get " + MariadbBinaries.ARTIFACT.coordinates(DEFAULT) + " from Maven Central (offline?): "),
                e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }
}
