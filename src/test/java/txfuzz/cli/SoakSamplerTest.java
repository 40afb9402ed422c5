package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The soak's verdict, both ways: a figure that rises with time is not flat; one that varies around a level is. */
@Tag("unit")
class SoakSamplerTest {
    private static List<SoakSampler.Sample> samples(int n, java.util.function.IntUnaryOperator threads) {
        List<SoakSampler.Sample> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new SoakSampler.Sample(i * 10L, 500_000 + (i % 3) * 10_000, threads.applyAsInt(i), 12 + i % 2, 20_000, i * 100L));
        }
        return out;
    }

    private static SoakSampler.Verdict of(List<SoakSampler.Verdict> all, String figure) {
        return all.stream().filter(v -> v.figure().equals(figure)).findFirst().orElseThrow();
    }

    @Test
    void aThreadLeakOfOneEverySampleIsNotFlat() {
        List<SoakSampler.Verdict> v = SoakSampler.verdicts(samples(40, i -> 18 + i));
        assertFalse(of(v, "threads").flat(), v.toString());
        assertTrue(of(v, "open files").flat(), v.toString());
        assertTrue(of(v, "resident memory (kB)").flat(), v.toString());
    }

    @Test
    void figuresThatVaryAroundALevelAreFlat() {
        List<SoakSampler.Verdict> v = SoakSampler.verdicts(samples(40, i -> 18 + i % 4));
        assertTrue(v.stream().allMatch(SoakSampler.Verdict::flat), v.toString());
        assertEquals(21, of(v, "threads").firstQuarterMax());
    }

    @Test
    void theProcessItselfIsSampled() {
        SoakSampler.Sample s = SoakSampler.now(0, 0);
        assertTrue(s.threads() > 0, s.toString());
        // on Linux (where the soak is meant to run) /proc gives resident memory and open files
        if (java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/self/fd"))) {
            assertTrue(s.rssKb() > 0 && s.openFiles() > 0, s.toString());
        }
    }
}
