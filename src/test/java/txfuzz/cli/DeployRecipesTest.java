package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.ChildJvm;

/**
 * The recipes in deploy/, run as written: the one-host recipe for real (3 processes with --worker i/3, then
 * merge), and the Kubernetes manifest's and the Slurm script's command lines with their index variables set.
 * txfuzz is a script on PATH that starts this build (the image's /usr/local/bin/txfuzz does the same with its jar).
 */
class DeployRecipesTest {
    private static final Path DEPLOY = Path.of("deploy");
    /** Small and quick: reduction off, so a finding's signature is its case's own and not what a time budget allowed. */
    /** No reduction, no progress lines, and findings that break no promise filed too (H2's are most of seed 1's findings). */
    private static final String SMALL = "--reduce-time 0 --progress 1h --not-promised";

    /** A directory holding {@code txfuzz}, a script that runs this build's Main. */
    private static Path launcherDir(Path tmp) throws IOException {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path txfuzz = bin.resolve("txfuzz");
        // the flags of the suite's other child JVMs: these live seconds
        String java = String.join(" ", ChildJvm.java("-cp", System.getProperty("java.class.path"), "txfuzz.cli.Main").stream()
                .map(a -> "'" + a + "'").toList());
        // written by a child process, not by this JVM: a process another thread forks while this JVM holds the script open
        // for writing inherits that descriptor, and exec of the script then fails with "Text file busy" (ETXTBSY; seen in a
        // clean-clone suite). The JVM writes a file nobody runs, and cp, which exits before the test goes on, makes the script.
        Path text = Files.writeString(tmp.resolve("txfuzz.sh"), "#!/bin/sh\nexec " + java + " \"$@\"\n");
        Process cp = new ProcessBuilder("cp", text.toString(), txfuzz.toString()).inheritIO().start();
        try {
            assertTrue(cp.waitFor(30, TimeUnit.SECONDS) && cp.exitValue() == 0, "cp made the launcher");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        assertTrue(txfuzz.toFile().setExecutable(true));
        return bin;
    }

    private record Ran(int code, String output) {
    }

    private static Ran shell(Path tmp, Map<String, String> env, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", launcherDir(tmp) + ":" + System.getenv("PATH"));
        pb.environment().put("TXFUZZ_HOME", tmp.resolve("home").toString()); // a private home of the recipe's own, never the user's
        pb.environment().putAll(env);
        Path log = Files.createTempFile(tmp, "shell", ".log");
        Process p = pb.redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(15, TimeUnit.MINUTES), "the recipe ends");
        return new Ran(p.exitValue(), Files.readString(log));
    }

    /** The iterations events.jsonl says the run in {@code out} ran, in file order. */
    private static List<Long> iterations(Path out) throws IOException {
        List<Long> ran = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve("events.jsonl"))) {
            JsonNode e = CliTest.jsonText(line);
            if (e.get("event").asText().equals("case")) {
                ran.add(e.get("iteration").asLong());
            }
        }
        return ran;
    }

    /** The class's folder: each recipe runs in a folder of its own in it. */
    @TempDir
    static Path classDir;

    private static ExecutorService drivers;
    private static final Map<String, Future<?>> RECIPES = new ConcurrentHashMap<>();

    private interface Body {
        void run(Path tmp) throws Exception;
    }

    /**
     * The three recipes start here, at once (each is txfuzz processes that mostly start JVMs and wait for them); each
     * test waits for its own and fails with what it found.
     */
    @BeforeAll
    static void startEveryRecipe() {
        drivers = Executors.newFixedThreadPool(3, r -> {
            Thread t = new Thread(r, "deploy-recipe");
            t.setDaemon(true);
            return t;
        });
        recipe("one-host", DeployRecipesTest::oneHost);
        recipe("kubernetes", DeployRecipesTest::kubernetes);
        recipe("slurm", DeployRecipesTest::slurm);
    }

    private static void recipe(String name, Body body) {
        RECIPES.put(name, drivers.submit(() -> {
            body.run(Files.createDirectories(classDir.resolve(name)));
            return null;
        }));
    }

    private static void outcome(String name) throws Throwable {
        try {
            RECIPES.get(name).get();
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    @AfterAll
    static void stopDrivers() throws InterruptedException {
        drivers.shutdownNow();
        drivers.awaitTermination(60, TimeUnit.SECONDS);
    }

    @Test
    void oneHostRecipeRunsThreeWorkersWhoseMergeEqualsOneProcess() throws Throwable {
        outcome("one-host");
    }

    @Test
    void kubernetesManifestsCommandRunsWithItsCompletionIndex() throws Throwable {
        outcome("kubernetes");
    }

    @Test
    void slurmScriptRunsWithItsArrayTaskId() throws Throwable {
        outcome("slurm");
    }

    private static void oneHost(Path tmp) throws Exception {
        int tests = 45;
        Path out = tmp.resolve("campaign");
        // one process over the same iterations, to compare the merge with: in this JVM while the recipe's processes run
        Path single = tmp.resolve("single");
        CompletableFuture<CliTest.Result> oneProcess = CompletableFuture.supplyAsync(
                () -> CliTest.run(("run --seed 1 --jobs 1 --tests " + tests + " " + SMALL + " --out " + single).split(" ")));
        List<String> cmd = new ArrayList<>(List.of("bash", DEPLOY.resolve("one-host.sh").toString(), out.toString(), "3", "--seed", "1",
                "--tests", String.valueOf(tests)));
        cmd.addAll(List.of(SMALL.split(" ")));
        Ran r = shell(tmp, Map.of(), cmd.toArray(String[]::new));
        assertEquals(0, r.code(), r.output());
        assertTrue(r.output().contains("merged 3 runs (" + tests + " cases)"), r.output());

        // no case ran twice: worker i ran exactly the iterations k < tests with k mod 3 = i
        Set<Long> all = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            int w = i;
            List<Long> ran = iterations(out.resolve("worker-" + i));
            assertEquals(LongStream.range(0, tests).filter(k -> k % 3 == w).boxed().toList(), ran, "worker " + i);
            all.addAll(ran);
        }
        assertEquals(tests, all.size());
        Path merged = out.resolve("all");
        assertEquals(LongStream.range(0, tests).boxed().toList(), iterations(merged), "the merged events: every case once, in order");

        // the merged index equals one process's over the same iterations
        CliTest.Result one = oneProcess.get(15, TimeUnit.MINUTES);
        assertTrue(one.code() == 0 || one.code() == 1, one.toString());
        JsonNode m = CliTest.json(merged.resolve("summary.json"));
        JsonNode s = CliTest.json(single.resolve("summary.json"));
        assertEquals(s.get("cases").asLong(), m.get("cases").asLong());
        Set<Long> flaky = new HashSet<>(); // the engine not repeating itself (its confirming run differed): left out of the comparison
        for (JsonNode summary : List.of(m, s)) {
            summary.get("findings").forEach(f -> {
                if (f.get("classification").asText().equals("flaky")) {
                    flaky.add(txfuzz.campaign.Merge.iteration(f.get("id").asText()));
                }
            });
        }
        Map<String, List<String>> groupsMerged = groups(m, flaky);
        assertEquals(groups(s, flaky), groupsMerged);
        assertFalse(groupsMerged.isEmpty(), "seed 1's first " + tests + " cases have findings");
        assertTrue(groupsMerged.values().stream().anyMatch(ids -> ids.size() > 1), "and a duplicate: " + groupsMerged);

        // a representative's folder is copied; a duplicate keeps a reference to its run's folder
        for (JsonNode f : m.get("findings")) {
            String id = f.get("id").asText();
            if (f.get("duplicateOf").isNull()) {
                assertTrue(Files.isDirectory(merged.resolve(f.get("dir").asText())), id);
            } else {
                assertFalse(Files.exists(merged.resolve("findings").resolve(id)), "no folder for duplicate " + id);
                // its run's folder (a representative there), or its run's findings/duplicates.jsonl (a duplicate there too)
                assertTrue(Files.exists(Path.of(f.get("dir").asText())), "the reference of " + id + ": " + f.get("dir"));
            }
        }
        // merging again, the runs in another order, changes nothing
        String before = Files.readString(merged.resolve("summary.json")) + Files.readString(merged.resolve("events.jsonl"))
                + Files.readString(merged.resolve("findings").resolve("index.md")) + Files.readString(merged.resolve("signatures.txt"));
        CliTest.Result again = CliTest.run("merge", out.resolve("worker-2").toString(), out.resolve("worker-0").toString(),
                out.resolve("worker-1").toString(), "--out", merged.toString());
        assertEquals(0, again.code(), again.toString());
        assertEquals(before, Files.readString(merged.resolve("summary.json")) + Files.readString(merged.resolve("events.jsonl"))
                + Files.readString(merged.resolve("findings").resolve("index.md")) + Files.readString(merged.resolve("signatures.txt")));
    }

    /** Signature → the primary findings with it, by iteration, leaving out {@code leftOut} iterations. */
    private static Map<String, List<String>> groups(JsonNode summary, Set<Long> leftOut) {
        Map<String, List<String>> groups = new TreeMap<>();
        for (JsonNode f : summary.get("findings")) {
            String id = f.get("id").asText();
            if (f.get("primary").asBoolean() && !leftOut.contains(txfuzz.campaign.Merge.iteration(id))) {
                groups.computeIfAbsent(f.get("signature").asText(), k -> new ArrayList<>()).add(id);
            }
        }
        groups.values().forEach(ids -> ids.sort(java.util.Comparator.comparingLong(txfuzz.campaign.Merge::iteration)));
        return groups;
    }

    private static String only(String text, Pattern p) {
        Matcher m = p.matcher(text);
        assertTrue(m.find(), p.pattern());
        String found = m.group(1);
        assertFalse(m.find(), "one " + p.pattern());
        return found;
    }

    private static void kubernetes(Path tmp) throws Exception {
        String manifest = Files.readString(DEPLOY.resolve("kubernetes").resolve("txfuzz-job.yaml"));
        assertEquals("Indexed", only(manifest, Pattern.compile("completionMode: (\\w+)")));
        String completions = only(manifest, Pattern.compile("\\n\\s+completions: (\\d+)"));
        assertEquals(completions, only(manifest, Pattern.compile("\\n\\s+parallelism: (\\d+)")));
        assertEquals(completions, only(manifest, Pattern.compile("name: WORKERS\\s+value: \"(\\d+)\"")), "one worker per index");
        String command = only(manifest, Pattern.compile("\\n\\s+- (txfuzz run --worker [^\\n]+)"));
        assertTrue(Files.readString(DEPLOY.resolve("kubernetes").resolve("Dockerfile")).contains("/usr/local/bin/txfuzz"),
                "the image puts txfuzz on PATH");

        Path results = tmp.resolve("results");
        Ran r = shell(tmp, Map.of("JOB_COMPLETION_INDEX", "1", "WORKERS", "3", "SEED", "1", "LIMIT", "--tests 6 " + SMALL,
                "RESULTS", results.toString()), "/bin/sh", "-c", command);
        assertEquals(0, r.code(), r.output());
        Path out = results.resolve("worker-1");
        assertEquals(List.of(1L, 4L), iterations(out));
        assertEquals("1/3", CliTest.json(out.resolve("summary.json")).get("meta").get("worker").asText());
    }

    private static void slurm(Path tmp) throws Exception {
        Path script = DEPLOY.resolve("slurm").resolve("txfuzz-array.sbatch");
        assertEquals("0", only(Files.readString(script), Pattern.compile("#SBATCH --array=(\\d+)-")), "array indices from 0, as --worker counts");
        Path results = tmp.resolve("results");
        Ran r = shell(tmp, Map.of("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_CPUS_PER_TASK", "2", "SEED", "1",
                "LIMIT", "--tests 6 " + SMALL, "RESULTS", results.toString()), "bash", script.toString());
        assertEquals(0, r.code(), r.output());
        Path out = results.resolve("worker-2");
        assertEquals(List.of(2L, 5L), iterations(out));
        JsonNode meta = CliTest.json(out.resolve("summary.json")).get("meta");
        assertEquals("2/3", meta.get("worker").asText());
        assertEquals(2, meta.get("jobs").asInt(), "a task's CPUs are its workers");
    }
}
