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
        // what the command line asked for (the pom's argLine asks for the serial collector; an IDE may ask for none: G1),
        // read from the arguments, not from the beans current() reads
        List<String> args = ManagementFactory.getRuntimeMXBean().getInputArguments();
        String expected = args.contains("-XX:+UseSerialGC") ? "Copy, MarkSweepCompact"
                : args.contains("-XX:+UseParallelGC") ? CollectorName.describe(List.of("PS Scavenge"))
                : args.stream().anyMatch(a -> a.matches("-XX:\\+Use\\w+GC")) ? null : CollectorName.describe(List.of("G1 Young Generation"));
        if (expected != null) {
            assertEquals(expected, CollectorName.current());
        } else {
            List<String> names = ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList();
            assertEquals(CollectorName.describe(names), CollectorName.current()); // another collector: at least its beans' names
        }
    }
}
