package txfuzz.campaign;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import txfuzz.report.FindingIndex;
import txfuzz.report.FindingRecord;

/**
 * What earlier runs left in an output folder a run continues ({@code run --continue}): the findings
 * and unique findings their summary.json lists, which the continuing run's summary.json and index.md
 * go on listing beside its own, and the seeds they ran with (their finding folders are named by seed
 * and iteration, so a run with one of those seeds could overwrite them).
 */
public record EarlierRuns(List<FindingRecord> findings, List<Summary.Group> groups, List<Long> seeds) {
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** A finding folder's name ends in -s{seed}-i{iteration} (FindingWriter.id). */
    private static final java.util.regex.Pattern SEED_IN_ID = java.util.regex.Pattern.compile("-s(-?\\d+)-i\\d+$");

    public EarlierRuns {
        findings = List.copyOf(findings);
        groups = List.copyOf(groups);
        seeds = List.copyOf(seeds);
    }

    /** Nothing earlier: a folder of its own. */
    public static EarlierRuns none() {
        return new EarlierRuns(List.of(), List.of(), List.of());
    }

    /** The earlier runs recorded in {@code out}/summary.json; none when there is none. IllegalArgumentException when it cannot be read. */
    public static EarlierRuns in(Path out) {
        Path summary = out.resolve("summary.json");
        if (!Files.exists(summary)) {
            return none();
        }
        try {
            JsonNode s = JSON.readTree(summary.toFile());
            List<FindingRecord> findings = new ArrayList<>();
            for (JsonNode f : s.path("findings")) {
                findings.add(JSON.treeToValue(f, FindingRecord.class));
            }
            List<Summary.Group> groups = new ArrayList<>();
            for (JsonNode g : s.path("signatures")) {
                groups.add(JSON.treeToValue(g, Summary.Group.class));
            }
            java.util.Set<Long> seeds = new java.util.TreeSet<>();
            if (s.has("seed")) {
                seeds.add(s.path("seed").asLong());
            }
            for (FindingRecord f : findings) { // runs continued before this one: their seeds are in their findings' ids
                java.util.regex.Matcher m = SEED_IN_ID.matcher(f.id());
                if (m.find()) {
                    seeds.add(Long.parseLong(m.group(1)));
                }
            }
            return new EarlierRuns(findings, groups, List.copyOf(seeds));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot read the earlier run's " + summary + " (" + String.valueOf(e.getMessage()).lines().findFirst()
                    .orElse("") + "), so this run cannot continue it");
        }
    }

    /** The unique findings as index.md carries them. */
    List<FindingIndex.Earlier> indexed() {
        return groups.stream().map(g -> new FindingIndex.Earlier(g.signature(), g.text(), g.classification(), g.finding(), g.description(),
                g.duplicateIds() == null ? List.of() : g.duplicateIds())).toList();
    }
}
