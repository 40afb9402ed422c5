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
