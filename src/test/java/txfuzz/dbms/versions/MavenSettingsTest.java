package txfuzz.dbms.versions;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** txfuzz's downloads follow the user's Maven mirror of central, as the build's do. */
class MavenSettingsTest {
    private static Path settings(Path dir, String mirrors) throws Exception {
        return Files.writeString(dir.resolve("settings.xml"), "<settings><mirrors>" + mirrors + "</mirrors></settings>");
    }

    @Test
    void aMirrorOfCentralOrOfEverythingIsUsed(@TempDir Path dir) throws Exception {
        assertEquals(Optional.of("https://repo.example.org/central/"), MavenSettings.centralMirror(settings(dir,
                "<mirror><id>other</id><mirrorOf>snapshots</mirrorOf><url>https://no.example.org/</url></mirror>"
                        + "<mirror><id>corp</id><mirrorOf>central, plugins</mirrorOf><url> https://repo.example.org/central/ </url></mirror>")));
        assertEquals(Optional.of("https://all.example.org/"), MavenSettings.centralMirror(settings(dir,
                "<mirror><id>all</id><mirrorOf>*</mirrorOf><url>https://all.example.org/</url></mirror>")));
    }

    @Test
    void aMirrorKeepsItsIdUnderWhichTheLocalRepositoryKnowsWhatCameFromIt(@TempDir Path dir) throws Exception {
        assertEquals(Optional.of(new MavenSettings.Mirror("corp", "https://repo.example.org/")), MavenSettings.mirrorOfCentral(settings(dir,
                "<mirror><id>corp</id><mirrorOf>*</mirrorOf><url>https://repo.example.org/</url></mirror>")));
        // a local copy the build got through mirror "corp" is found offline only when asked of "corp", as Maven would
        Path local = dir.resolve("repository");
        Path h2 = MavenCentral.get().jar(EngineVersionsTest.H2, BundledVersions.of("h2"));
        Path copy = local.resolve(MavenCentral.get().localRepository().relativize(h2.getParent()));
        Files.createDirectories(copy);
        for (String ext : new String[] {".jar", ".pom"}) {
            String name = h2.getFileName().toString().replace(".jar", ext);
            Files.copy(h2.resolveSibling(name), copy.resolve(name));
            Files.writeString(copy.resolve("_remote.repositories"), name + ">corp=\n", java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        }
        String unreachable = "http://127.0.0.1:1/maven2/";
        assertEquals(copy.resolve(h2.getFileName()), new MavenCentral(local, new MavenSettings.Mirror("corp", unreachable))
                .jar(EngineVersionsTest.H2, BundledVersions.of("h2")));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new MavenCentral(local, unreachable).jar(EngineVersionsTest.H2, BundledVersions.of("h2")));
    }

    @Test
    void noMirrorNoFileOrABrokenFileMeansMavenCentral(@TempDir Path dir) throws Exception {
        assertEquals(Optional.empty(), MavenSettings.centralMirror(settings(dir,
                "<mirror><id>other</id><mirrorOf>snapshots</mirrorOf><url>https://no.example.org/</url></mirror>")));
        assertEquals(Optional.empty(), MavenSettings.centralMirror(dir.resolve("missing.xml")));
        assertEquals(Optional.empty(), MavenSettings.centralMirror(Files.writeString(dir.resolve("broken.xml"), "<settings><mirrors>")));
        assertEquals(Optional.empty(), MavenSettings.centralMirror(Files.writeString(dir.resolve("dtd.xml"),
                "<!DOCTYPE s [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><settings><mirrors><mirror><mirrorOf>*</mirrorOf><url>&x;</url>"
                        + "</mirror></mirrors></settings>")), "no entity is expanded");
    }
}
