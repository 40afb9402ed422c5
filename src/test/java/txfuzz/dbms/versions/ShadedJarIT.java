package txfuzz.dbms.versions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Targets;

/**
 * The runnable jar that {@code mvn verify} has just built (failsafe runs this after the package phase,
 * and is told where the jar is): it holds what the shade configuration does not exclude and nothing of
 * what it does ({@link ShadedJarTest} checks that configuration), and it runs a campaign on its own.
 */
class ShadedJarIT {
    private static final Path JAR = Path.of(System.getProperty("txfuzz.jar", "target/txfuzz.jar"));

    @Test
    void theJarHoldsWhatItDoesNotExcludeAndNothingOfWhatItDoes() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "the package phase built " + JAR);
        Set<String> excluded = ShadedJarTest.shadeExcludes();
        try (ZipFile jar = new ZipFile(JAR.toFile())) {
            for (Engine e : Targets.engines()) {
                MavenArtifact a = e.artifact().orElse(null);
                if (a == null) {
                    continue;
                }
                // the artifact's own files (its jar in the local repository, where the build put it), META-INF aside
                try (ZipFile artifact = new ZipFile(MavenCentral.get().jar(a, BundledVersions.of(e.name())).toFile())) {
                    List<String> files = artifact.stream().filter(x -> !x.isDirectory() && !x.getName().startsWith("META-INF/"))
                            .map(ZipEntry::getName).toList();
                    long inJar = files.stream().filter(f -> jar.getEntry(f) != null).count();
                    // excluded: none of them; else its files (the shade filters drop module-info.class, so not all)
                    assertEquals(excluded.contains(a.toString()), inJar == 0, e.name() + " (" + a + "): " + inJar + " of its " + files.size() + " files in " + JAR);
                }
            }
        }
    }

    @Test
    void theJarRunsACampaignOnItsOwn(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Path log = tmp.resolve("log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString(),
                "run", "--tests", "20", "--seed", "1", "--reduce-time", "0", "--out", out.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "20 H2 cases within two minutes");
        String said = Files.readString(log);
        assertTrue(p.exitValue() == 0 || p.exitValue() == 1, "a finished run (1: bug candidates found): " + said);
        assertTrue(Files.isRegularFile(out.resolve("summary.json")), said);
    }
}
