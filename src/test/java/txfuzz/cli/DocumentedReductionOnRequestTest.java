package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run} reduces bug candidates; a documented finding is filed as found (status {@code on-request}) unless
 * {@code --reduce-documented} asks for it, so a run ends with its cases. H2 at READ UNCOMMITTED, seed 1, finds a documented
 * write deviation (iteration 18) within 30 cases.
 */
class DocumentedReductionOnRequestTest {
    private static final String[] RUN = {"run", "--dbms", "h2", "--isolation", "READ_UNCOMMITTED", "--seed", "1", "--tests", "30"};

    @Test
    void aDocumentedFindingIsFiledAsFoundAndSaysHowToReduceIt(@TempDir Path out) throws Exception {
        JsonNode finding = documented(run(out));
        assertEquals("on-request", finding.get("reduction").get("status").asText(), finding.toString());
        Path dir = out.resolve(finding.get("dir").asText());
        assertTrue(Files.notExists(dir.resolve("original.case.json")), "the case as found is case.json itself");
        String readme = Files.readString(dir.resolve("README.md"));
        assertTrue(readme.contains("the campaign reduced only bug candidates (`run --reduce-documented` reduces the others too);"
                + " `txfuzz reduce` on its `case.json` shrinks it."), readme);
    }

    @Test
    void reduceDocumentedReducesIt(@TempDir Path out) throws Exception {
        JsonNode finding = documented(run(out, "--reduce-documented"));
        assertEquals("reduced", finding.get("reduction").get("status").asText(), finding.toString());
        assertTrue(Files.exists(out.resolve(finding.get("dir").asText()).resolve("original.case.json")));
    }

    private static Path run(Path out, String... more) {
        List<String> args = new ArrayList<>(List.of(RUN));
        args.addAll(List.of(more));
        args.addAll(List.of("--out", out.toString()));
        CliTest.Result r = CliTest.run(args.toArray(String[]::new));
        assertTrue(r.code() == Main.OK || r.code() == Main.FOUND, r.toString());
        return out;
    }

    /** The run's first primary documented finding. */
    private static JsonNode documented(Path out) {
        for (JsonNode f : CliTest.json(out.resolve("summary.json")).get("findings")) {
            if (f.get("primary").asBoolean() && "documented".equals(f.get("classification").asText())) {
                return f;
            }
        }
        throw new AssertionError("no documented finding in 30 cases of seed 1 at READ UNCOMMITTED");
    }
}
