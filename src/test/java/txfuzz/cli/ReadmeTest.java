package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The README is what a newcomer reads whole: the two commands first (the test command exactly what CI
 * runs), then no more than two screens; the reference lives in docs/.
 */
@Tag("unit")
class ReadmeTest {
    private static final int TWO_SCREENS = 120;

    @Test
    void itOpensWithTheTwoCommandsAndFitsOnTwoScreens() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("README.md"));
        assertTrue(lines.size() <= TWO_SCREENS, "README.md has " + lines.size() + " lines; the reference belongs in docs/");
        List<String> commands = lines.stream().filter(l -> l.startsWith("    ")).limit(2).map(l -> l.strip().split("\\s+#")[0].strip()).toList();
        assertEquals(List.of("./txfuzz run", "mvn -B verify"), commands);
        assertTrue(Files.readAllLines(Path.of(".ci", "run")).contains("mvn -B verify"), ".ci/run runs the README's test command");
    }
}
