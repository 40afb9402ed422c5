package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The collector named above bench --checker's figures, from HotSpot's collector beans. */
@Timeout(10)
class CollectorNameTest {
    @Test
    void eachCollectorIsNamed() {
        assertEquals("parallel (-XX:+UseParallelGC, as ./txfuzz starts check and bench --checker)",
                CollectorName.describe(List.of("PS Scavenge", "PS MarkSweep")));
        assertEquals("G1 (Java's default)", CollectorName.describe(List.of("G1 Young Generation", "G1 Concurrent GC", "G1 Old Generation")));
        assertEquals("Copy, MarkSweepCompact", CollectorName.describe(List.of("Copy", "MarkSweepCompact")));
    }

    @Test
    void thisJvmsOwnCollectorIsRead() {
        List<String> names = ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList();
        assertEquals(CollectorName.describe(names), CollectorName.current());
    }
}
