package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What merge refuses, each with one line that says why, and what it leaves alone; and --worker, --jobs and --known's own errors. */
@Tag("unit")
class MergeCommandTest {
    private static Path run(Path tmp, String name, String seed, String worker) {
        Path out = tmp.resolve(name);
        CliTest.Result r = CliTest.run("run", "--seed", seed, "--tests", "4", "--worker", worker, "--jobs", "1", "--reduce-time", "0",
                "--progress", "1h", "--out", out.toString());
        assertTrue(r.code() == 0 || r.code() == 1, r.toString());
        return out;
    }

    private static void oneLineError(CliTest.Result r, String expected) {
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains(expected), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }

    @Test
    void mergeRefusesWhatCannotBeMergedAndSaysWhatDiffers(@TempDir Path tmp) throws Exception {
        Path a = run(tmp, "a", "1", "0/2");
        Path b = run(tmp, "b", "2", "1/2");
        Path a2 = run(tmp, "a2", "1", "0/2");
        Path notRun = Files.createDirectories(tmp.resolve("photos"));
        Files.writeString(notRun.resolve("cat.jpg"), "meow");

        oneLineError(CliTest.run("merge", a.toString(), notRun.toString(), "--out", tmp.resolve("m1").toString()),
                notRun + " is not a txfuzz run's output folder: it has no summary.json");
        oneLineError(CliTest.run("merge", a.toString(), b.toString(), "--out", tmp.resolve("m2").toString()), "seed 1 vs 2");
        oneLineError(CliTest.run("merge", a.toString(), a2.toString(), "--out", tmp.resolve("m3").toString()), "both ran iteration 0");
        oneLineError(CliTest.run("merge", a.toString(), "--out", notRun.toString()), "holds files no merge made");
        assertEquals("meow", Files.readString(notRun.resolve("cat.jpg")), "a folder merge did not make is left alone");
        assertFalse(Files.exists(tmp.resolve("m1")) || Files.exists(tmp.resolve("m2")) || Files.exists(tmp.resolve("m3")), "nothing written");

        // a merge's own output is brought up to date, never merged as a run
        Path m = tmp.resolve("m");
        assertEquals(0, CliTest.run("merge", a.toString(), "--out", m.toString()).code());
        oneLineError(CliTest.run("merge", m.toString(), "--out", tmp.resolve("m4").toString()), "is the output of a merge, not of a run");
        assertEquals(0, CliTest.run("merge", a.toString(), "--out", m.toString()).code(), "the same merge again");
    }

    @Test
    void workerJobsAndKnownTakeOnlyWhatTheyMean(@TempDir Path tmp) throws Exception {
        oneLineError(CliTest.run("run", "--worker", "3/3"), "--worker 3/3: the index must be at least 0 and below the number of workers");
        oneLineError(CliTest.run("run", "--worker", "two"), "--worker takes i/N");
        oneLineError(CliTest.run("run", "--jobs", "0"), "--jobs must be at least 1, not 0");
        Path bad = tmp.resolve("known.txt");
        Files.writeString(bad, "0f1d6ec14adc\nnot-a-signature\n");
        oneLineError(CliTest.run("run", "--known", bad.toString()), bad + " line 2: 'not-a-signature' is not a signature id");
        oneLineError(CliTest.run("run", "--known", tmp.resolve("absent.txt").toString()), "--known: cannot read");
    }
}
