package txfuzz.cli;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * Which garbage collector runs, printed above {@code bench --checker}'s figures: reading and checking a large history
 * allocates its columns as it goes, and the collector changes its time by 10-25% ({@code ./txfuzz} starts {@code check}
 * and {@code bench --checker} with the parallel one, a plain {@code java -jar} gets G1), so a figure says which it is.
 */
final class CollectorName {
    private CollectorName() {
    }

    /** This JVM's collector, in words. */
    static String current() {
        return describe(ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList());
    }

    /** The collector that HotSpot's collector beans of {@code names} belong to. */
    static String describe(List<String> names) {
        if (names.stream().anyMatch(n -> n.startsWith("PS "))) {
            return "parallel (-XX:+UseParallelGC, as ./txfuzz starts check and bench --checker)";
        }
        if (names.stream().anyMatch(n -> n.startsWith("G1 "))) {
            return "G1 (Java's default)";
        }
        return String.join(", ", names);
    }
}
