package txfuzz.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code txfuzz merge OUT... --out ALL}: the output folders of runs that shared the iteration space
 * ({@code run --worker i/N} on many machines) as one. The merge is a function of its inputs alone — the
 * order they are given in, and what ALL held before, change nothing — so it is safe to run again as
 * more results arrive. Findings are grouped by signature across runs; a group's representative is its
 * finding of the lowest iteration (the one a single process running the same iterations would have
 * filed first), whose folder is copied into ALL/findings/; every other finding of the group (a
 * duplicate) keeps a reference to its folder in its own run, not a copy.
 *
 * <p>ALL gets summary.json (the figures summed, the findings and signatures merged, and {@code merge}:
 * the runs it was made from), events.jsonl (each run's start and end, and every case and finding event,
 * in iteration order, each naming its run), findings/index.md, and signatures.txt (one signature id a
 * line, for {@code run --known}).
 */
public final class Merge {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper LINES = new ObjectMapper();
    /** A finding's id ends in -s{seed}-i{iteration} (report.FindingWriter#id). */
    private static final Pattern ITERATION = Pattern.compile("-i(\\d+)$");
    /** The merged summary.json's shape. */
    public static final int FORMAT_VERSION = 1;

    /** A merge that cannot be made (inputs that are not runs, or runs that do not belong together): a one-line message. */
    public static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }

    /** One input run. */
    private record Input(Path dir, JsonNode summary, List<JsonNode> events, String worker) {
        int workerIndex() {
            return worker == null ? -1 : Integer.parseInt(worker.substring(0, worker.indexOf('/')));
        }
    }

    /** What was merged, for the command's last line. */
    public record Result(int runs, long cases, int unique, int uniqueBugCandidates, int duplicates, int copied) {
    }

    private Merge() {
    }

    /** Merges {@code runs} into {@code all}; {@link Refused} when they cannot be merged or {@code all} is not for a merge. */
    public static Result merge(List<Path> runs, Path all) {
        if (runs.isEmpty()) {
            throw new Refused("merge needs at least one run's output folder");
        }
        checkOut(all, runs);
        List<Input> inputs = new ArrayList<>();
        for (Path dir : runs) {
            inputs.add(read(dir));
        }
        inputs.sort(Comparator.comparingInt(Input::workerIndex).thenComparing(i -> i.dir().toString()));
        checkTogether(inputs);
        try {
            Files.createDirectories(all.resolve("findings"));
            return write(inputs, all);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + all + ": " + e.getMessage(), e);
        }
    }

    /** ALL must be new, empty, or made by an earlier merge: the merge replaces what it made there and nothing else. */
    private static void checkOut(Path all, List<Path> runs) {
        for (Path r : runs) {
            if (r.toAbsolutePath().normalize().equals(all.toAbsolutePath().normalize())) {
                throw new Refused("--out " + all + " is also one of the runs to merge; give a folder of its own");
            }
        }
        if (!Files.exists(all)) {
            return;
        }
        if (!Files.isDirectory(all)) {
            throw new Refused("--out " + all + " is a file, not a folder");
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(all)) {
            if (!entries.iterator().hasNext()) {
                return;
            }
        } catch (IOException e) {
            throw new Refused("--out " + all + " cannot be read: " + e.getMessage());
        }
        Path summary = all.resolve("summary.json");
        try {
            if (Files.exists(summary) && LINES.readTree(summary.toFile()).has("merge")) {
                return;
            }
        } catch (IOException e) {
            // not a merge's summary: refused below
        }
        throw new Refused("--out " + all + " holds files no merge made (no merged summary.json); give a new or empty folder, or the folder of"
                + " an earlier merge to bring up to date");
    }

    private static Input read(Path dir) {
        Path summary = dir.resolve("summary.json");
        if (!Files.isDirectory(dir)) {
            throw new Refused(dir + " is not a folder, so not a txfuzz run's output");
        }
        if (!Files.exists(summary)) {
            throw new Refused(dir + " is not a txfuzz run's output folder: it has no summary.json");
        }
        JsonNode s;
        try {
            s = LINES.readTree(summary.toFile());
        } catch (IOException e) {
            throw new Refused(dir + " is not a txfuzz run's output folder: its summary.json is not JSON ("
                    + String.valueOf(e.getMessage()).lines().findFirst().orElse("") + ")");
        }
        if (s.has("merge")) {
            throw new Refused(dir + " is the output of a merge, not of a run; merge the runs themselves (a merge can be run again as more arrive)");
        }
        if (!s.hasNonNull("dbms") || !s.has("seed") || !s.path("signatures").isArray() || !s.path("findings").isArray()) {
            throw new Refused(dir + " is not a txfuzz run's output folder: its summary.json has no dbms, seed, findings and signatures");
        }
        List<JsonNode> events = new ArrayList<>();
        Path log = dir.resolve("events.jsonl");
        if (Files.exists(log)) {
            try {
                for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        events.add(LINES.readTree(line));
                    }
                }
            } catch (IOException e) {
                // a run killed mid-line leaves a partial last line: keep the whole ones before it
            }
        }
        JsonNode w = s.path("meta").path("worker");
        return new Input(dir, s, events, w.isTextual() ? w.asText() : null);
    }

    /** Runs merge when they ran the same campaign (engine build, seed, levels, oracles) on iterations no other run ran. */
    private static void checkTogether(List<Input> inputs) {
        Input first = inputs.get(0);
        for (Input in : inputs.subList(1, inputs.size())) {
            List<String> differ = new ArrayList<>();
            for (String field : List.of("dbms", "version", "seed", "isolation", "oracles")) {
                if (!first.summary().path(field).equals(in.summary().path(field))) {
                    differ.add(field + " " + text(first.summary().path(field)) + " vs " + text(in.summary().path(field)));
                }
            }
            String n1 = first.worker() == null ? null : first.worker().substring(first.worker().indexOf('/') + 1);
            String n2 = in.worker() == null ? null : in.worker().substring(in.worker().indexOf('/') + 1);
            if (!java.util.Objects.equals(n1, n2)) {
                differ.add("worker " + (first.worker() == null ? "none (every iteration)" : first.worker()) + " vs "
                        + (in.worker() == null ? "none (every iteration)" : in.worker()));
            }
            if (!differ.isEmpty()) {
                throw new Refused("cannot merge " + first.dir() + " and " + in.dir() + ": they are not one campaign split by --worker ("
                        + String.join("; ", differ) + ")");
            }
        }
        Map<Long, Path> ranIn = new TreeMap<>();
        for (Input in : inputs) {
            for (JsonNode e : in.events()) {
                if ("case".equals(e.path("event").asText())) {
                    Path earlier = ranIn.putIfAbsent(e.path("iteration").asLong(), in.dir());
                    if (earlier != null && !earlier.equals(in.dir())) {
                        throw new Refused("cannot merge " + earlier + " and " + in.dir() + ": both ran iteration " + e.path("iteration").asLong()
                                + " (the same worker twice?); merge one of them");
                    }
                }
            }
        }
    }

    private static String text(JsonNode n) {
        return n.isTextual() ? n.asText() : n.toString();
    }

    /** One finding across the runs: its record lines and the run it is in. */
    private record Found(String id, long iteration, Input run, List<JsonNode> records) {
    }

    private static Result write(List<Input> inputs, Path all) throws IOException {
        // every finding of every run, by id
        Map<String, Found> found = new LinkedHashMap<>();
        for (Input in : inputs) {
            for (JsonNode f : in.summary().path("findings")) {
                String id = f.path("id").asText();
                found.computeIfAbsent(id, k -> new Found(k, iteration(k), in, new ArrayList<>())).records().add(f);
            }
        }
        // the signature groups: every run's representative and duplicates, by signature id
        Map<String, JsonNode> groupInfo = new LinkedHashMap<>();
        Map<String, List<String>> members = new LinkedHashMap<>();
        for (Input in : inputs) {
            for (JsonNode g : in.summary().path("signatures")) {
                String sig = g.path("signature").asText();
                groupInfo.putIfAbsent(sig, g);
                List<String> ids = members.computeIfAbsent(sig, k -> new ArrayList<>());
                ids.add(g.path("finding").asText());
                for (JsonNode d : g.path("duplicateIds")) {
                    ids.add(d.asText());
                }
            }
        }
        Comparator<String> byIteration = Comparator.comparingLong(Merge::iteration).thenComparing(Comparator.naturalOrder());
        List<ObjectNode> groups = new ArrayList<>();
        Map<String, String> representativeOf = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> m : members.entrySet()) {
            List<String> ids = m.getValue().stream().distinct().sorted(byIteration).toList();
            String representative = ids.get(0);
            JsonNode info = groupInfo.get(m.getKey());
            // the description is the representative's own, as its run gave it
            JsonNode described = inputs.stream().flatMap(in -> java.util.stream.StreamSupport.stream(in.summary().path("signatures").spliterator(), false))
                    .filter(g -> representative.equals(g.path("finding").asText())).findFirst().orElse(info);
            ObjectNode g = LINES.createObjectNode();
            g.put("signature", m.getKey());
            g.set("text", info.path("text"));
            g.set("classification", info.path("classification"));
            g.put("finding", representative);
            g.set("description", described.path("description"));
            g.put("duplicates", ids.size() - 1);
            ArrayNode dups = g.putArray("duplicateIds");
            ids.subList(1, ids.size()).forEach(dups::add);
            groups.add(g);
            for (String id : ids) {
                representativeOf.put(id, representative);
            }
        }
        groups.sort(Comparator.comparing((ObjectNode g) -> g.path("finding").asText(), byIteration));
        // the findings' lines: a representative's folder is in ALL, a duplicate's stays where its run filed it
        List<String> ids = new ArrayList<>(found.keySet());
        ids.sort(byIteration);
        ArrayNode findings = LINES.createArrayNode();
        java.util.Set<String> copied = new java.util.TreeSet<>();
        for (String id : ids) {
            Found f = found.get(id);
            String representative = representativeOf.get(id);
            boolean unique = representative == null || representative.equals(id);
            for (JsonNode r : f.records()) {
                ObjectNode line = ((ObjectNode) r).deepCopy();
                line.put("run", f.run().dir().toString());
                if (unique) {
                    line.put("dir", "findings/" + id);
                    line.putNull("duplicateOf");
                    copied.add(id);
                } else {
                    line.put("dir", f.run().dir().toAbsolutePath().normalize().resolve(r.path("dir").asText("findings/" + id)).toString());
                    line.put("duplicateOf", representative);
                }
                findings.add(line);
            }
        }
        for (String id : copied) {
            Found f = found.get(id);
            copyFolder(f.run().dir().resolve("findings").resolve(id), all.resolve("findings").resolve(id));
        }
        removeStale(all.resolve("findings"), copied);

        ObjectNode summary = LINES.createObjectNode();
        ObjectNode merge = summary.putObject("merge");
        merge.put("formatVersion", FORMAT_VERSION);
        ArrayNode runs = merge.putArray("runs");
        Input first = inputs.get(0);
        for (String field : List.of("dbms", "version", "seed", "isolation", "oracles")) {
            summary.set(field, first.summary().path(field));
        }
        long cases = 0;
        Map<String, Long> sums = new LinkedHashMap<>();
        for (Input in : inputs) {
            ObjectNode run = runs.addObject();
            run.put("dir", in.dir().toString());
            if (in.worker() != null) {
                run.put("worker", in.worker());
            } else {
                run.putNull("worker");
            }
            for (String field : List.of("cases", "seconds", "endedBy", "interrupted")) {
                run.set(field, in.summary().path(field));
            }
            run.set("startedAt", in.summary().path("meta").path("startedAt"));
            run.set("commandLine", in.summary().path("meta").path("commandLine"));
            for (String field : List.of("cases", "invalidCases", "transactions", "statements", "stalls", "bugCandidates", "documented", "flaky", "notPromised")) {
                sums.merge(field, in.summary().path(field).asLong(), Long::sum);
            }
            cases += in.summary().path("cases").asLong();
        }
        sums.forEach(summary::put);
        summary.set("findings", findings);
        summary.put("uniqueFindings", groups.size());
        int bugs = (int) groups.stream().filter(g -> "bug-candidate".equals(g.path("classification").asText())).count();
        summary.put("uniqueBugCandidates", bugs);
        int duplicates = groups.stream().mapToInt(g -> g.path("duplicates").asInt()).sum();
        summary.put("duplicates", duplicates);
        ArrayNode signatures = summary.putArray("signatures");
        groups.forEach(signatures::add);
        writeAtomically(all.resolve("summary.json"), JSON.writeValueAsString(summary) + "\n");
        writeAtomically(all.resolve("events.jsonl"), events(inputs));
        writeAtomically(all.resolve("signatures.txt"), signaturesText(groups));
        writeAtomically(all.resolve("findings").resolve("index.md"), index(first, inputs.size(), groups, duplicates, bugs));
        return new Result(inputs.size(), cases, groups.size(), bugs, duplicates, copied.size());
    }

    /** The iteration a finding id names; -1 when it names none. */
    public static long iteration(String id) {
        Matcher m = ITERATION.matcher(id);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** The runs' starts, then every case, finding and step in iteration order, then the runs' ends; each line names its run. */
    private static String events(List<Input> inputs) throws IOException {
        List<ObjectNode> starts = new ArrayList<>();
        List<ObjectNode> ends = new ArrayList<>();
        TreeMap<Long, List<ObjectNode>> byIteration = new TreeMap<>();
        for (Input in : inputs) {
            for (JsonNode e : in.events()) {
                ObjectNode line = ((ObjectNode) e).deepCopy();
                line.put("run", in.dir().toString());
                switch (e.path("event").asText()) {
                    case "start" -> starts.add(line);
                    case "end" -> ends.add(line);
                    case "case" -> byIteration.computeIfAbsent(e.path("iteration").asLong(), k -> new ArrayList<>()).add(line);
                    default -> byIteration.computeIfAbsent(iteration(e.has("id") ? e.path("id").asText() : e.path("finding").asText()),
                            k -> new ArrayList<>()).add(line);
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (ObjectNode e : starts) {
            out.append(LINES.writeValueAsString(e)).append('\n');
        }
        for (List<ObjectNode> at : byIteration.values()) {
            for (ObjectNode e : at) {
                out.append(LINES.writeValueAsString(e)).append('\n');
            }
        }
        for (ObjectNode e : ends) {
            out.append(LINES.writeValueAsString(e)).append('\n');
        }
        return out.toString();
    }

    private static String signaturesText(List<ObjectNode> groups) {
        StringBuilder out = new StringBuilder("# txfuzz merge: the signatures of the unique findings, one a line (run --known takes this file)\n");
        for (ObjectNode g : groups) {
            out.append(g.path("signature").asText()).append("  # ").append(g.path("classification").asText()).append(' ')
                    .append(g.path("text").asText().replace('\n', ' ')).append('\n');
        }
        return out.toString();
    }

    private static final List<String[]> SECTIONS = List.of(new String[] {"bug-candidate", "Bug candidates"},
            new String[] {"documented", "Documented behaviour"},
            new String[] {"not-promised", "Not promised (every promise of the level holds; filed with --not-promised)"},
            new String[] {"flaky", "Flaky (not reproduced by a second run)"},
            new String[] {"instrumentation-effect", "Instrumentation effects"});

    private static String index(Input first, int runs, List<ObjectNode> groups, int duplicates, int bugs) {
        StringBuilder md = new StringBuilder("# txfuzz findings: ").append(first.summary().path("version").asText()).append(", seed ")
                .append(first.summary().path("seed").asText()).append(", merged from ").append(runs).append(runs == 1 ? " run" : " runs").append("\n\n");
        md.append(groups.size()).append(" unique finding").append(groups.size() == 1 ? "" : "s").append(" (").append(bugs).append(" bug candidate")
                .append(bugs == 1 ? "" : "s").append("); ").append(duplicates).append(" duplicate").append(duplicates == 1 ? "" : "s")
                .append(". A unique finding's folder is here; a duplicate stays in its run's folder (summary.json's findings give its dir).\n");
        for (String[] section : SECTIONS) {
            List<ObjectNode> in = groups.stream().filter(g -> section[0].equals(g.path("classification").asText())).toList();
            if (in.isEmpty()) {
                continue;
            }
            md.append("\n## ").append(section[1]).append("\n\n| finding | signature | description | duplicates |\n|---|---|---|---|\n");
            for (ObjectNode g : in) {
                String id = g.path("finding").asText();
                md.append("| [").append(id).append("](").append(id).append("/README.md) | `").append(g.path("signature").asText()).append("` ")
                        .append(cell(g.path("text").asText())).append(" | ").append(cell(g.path("description").asText())).append(" | ")
                        .append(g.path("duplicates").asInt());
                List<String> dups = new ArrayList<>();
                g.path("duplicateIds").forEach(d -> dups.add(d.asText()));
                if (!dups.isEmpty()) {
                    md.append(": ").append(String.join(", ", dups.subList(0, Math.min(5, dups.size())))).append(dups.size() > 5 ? ", …" : "");
                }
                md.append(" |\n");
            }
        }
        return md.toString();
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }

    private static void writeAtomically(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Copies a finding's folder (whole, then renamed into place, replacing the copy an earlier merge made). */
    private static void copyFolder(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            throw new Refused(from + " is listed in its run's summary.json but is not there: the run's folder is incomplete");
        }
        Path tmp = to.resolveSibling("." + to.getFileName() + ".merge-tmp");
        deleteTree(tmp);
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(tmp.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, tmp.resolve(from.relativize(file).toString()), StandardCopyOption.REPLACE_EXISTING);
                return FileVisitResult.CONTINUE;
            }
        });
        deleteTree(to);
        Files.move(tmp, to, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Folders an earlier merge copied whose finding is no longer a representative (a run that arrived since has an earlier one). */
    private static void removeStale(Path findings, java.util.Set<String> keep) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(findings)) {
            for (Path e : entries) {
                String name = e.getFileName().toString();
                if (Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS) && !keep.contains(name) && !name.startsWith(".")) {
                    deleteTree(e);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (var walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
