package txfuzz.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The signatures a CI run already knows ({@code run --known FILE}): a text file with one signature id a
 * line ({@code #} starts a comment; {@code signatures.txt} of {@code txfuzz merge} is one), or a
 * summary.json (of a run or of a merge), whose {@code signatures} are taken.
 *
 * @param file       where they came from
 * @param signatures the signature ids
 */
public record KnownSignatures(Path file, Set<String> signatures) {
    /** A signature id: the first 6 bytes of a SHA-256, in hex (report.Signature#id). */
    private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("[0-9a-f]{12}");

    public KnownSignatures {
        signatures = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(signatures));
    }

    /** Reads {@code file}; IllegalArgumentException with a one-line message when it is neither form. */
    public static KnownSignatures read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("--known: cannot read " + file + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
        if (text.stripLeading().startsWith("{")) {
            return fromSummary(file, text);
        }
        Set<String> ids = new LinkedHashSet<>();
        List<String> lines = text.lines().toList();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n);
            int hash = line.indexOf('#');
            String id = (hash < 0 ? line : line.substring(0, hash)).strip();
            if (id.isEmpty()) {
                continue;
            }
            if (!ID.matcher(id).matches()) {
                throw new IllegalArgumentException("--known: " + file + " line " + (n + 1) + ": '" + id + "' is not a signature id (12 hex digits,"
                        + " as summary.json's signatures list them); the file takes one a line, or a summary.json");
            }
            ids.add(id);
        }
        return new KnownSignatures(file, ids);
    }

    private static KnownSignatures fromSummary(Path file, String text) {
        JsonNode s;
        try {
            s = new ObjectMapper().readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException("--known: " + file + " is not valid JSON (" + String.valueOf(e.getMessage()).lines().findFirst().orElse("") + ")");
        }
        if (!s.path("signatures").isArray()) {
            throw new IllegalArgumentException("--known: " + file + " is JSON without a 'signatures' list: give a summary.json of a run or of a merge,"
                    + " or a text file with one signature id a line");
        }
        List<String> ids = new ArrayList<>();
        for (JsonNode g : s.path("signatures")) {
            ids.add(g.path("signature").asText());
        }
        return new KnownSignatures(file, new LinkedHashSet<>(ids));
    }

    /** This run's unique findings split by whether their signature is known. */
    Summary.Known split(List<Summary.Group> groups) {
        long known = 0;
        List<String> newBugs = new ArrayList<>();
        for (Summary.Group g : groups) {
            if (signatures.contains(g.signature())) {
                known++;
            } else if ("bug-candidate".equals(g.classification())) {
                newBugs.add(g.signature());
            }
        }
        return new Summary.Known(file.toString(), signatures.size(), known, groups.size() - known, newBugs.size(), newBugs);
    }
}
