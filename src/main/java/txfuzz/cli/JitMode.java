package txfuzz.cli;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/**
 * Which of the JVM's compilers run, printed above bench's table: a figure measured with C1 alone (how {@code ./txfuzz}
 * starts Java) and one with C2 too (a plain {@code java -jar}) differ by up to 2.4x on the in-process engines, so a
 * table says which it is.
 */
final class JitMode {
    private JitMode() {
    }

    /** This JVM's compilers, in words. */
    static String current() {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return describe(Boolean.parseBoolean(vm.getVMOption("TieredCompilation").getValue()),
                    Integer.parseInt(vm.getVMOption("TieredStopAtLevel").getValue()));
        } catch (RuntimeException e) {
            return "unknown (not a HotSpot JVM)"; // another JVM names no such options
        }
    }

    static String describe(boolean tiered, int stopAtLevel) {
        if (!tiered) {
            return "C2 alone (-XX:-TieredCompilation)";
        }
        if (stopAtLevel <= 0) {
            return "interpreter alone (-XX:TieredStopAtLevel=0)";
        }
        return stopAtLevel < 4 ? "C1 alone (-XX:TieredStopAtLevel=" + stopAtLevel + ", as ./txfuzz starts campaigns)"
                : "C1 and C2 (Java's default, as ./txfuzz starts check and bench --checker; campaigns run C1 alone)";
    }
}
