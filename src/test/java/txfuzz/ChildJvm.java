package txfuzz;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a second JVM on the test classpath, for tests that signal a real txfuzz process. */
public final class ChildJvm {
    private ChildJvm() {
    }

    /**
     * {@code java -cp <test classpath> <jvmArgsAndMain...>}, with SIGINT and SIGTERM at their defaults as
     * in a terminal. A job started by a non-interactive shell (as a CI script runs the suite) inherits
     * SIGINT ignored, and a JVM leaves an ignored SIGINT ignored, so a test's Ctrl-C would not arrive:
     * perl restores the default dispositions and then becomes the JVM (same pid). The child compiles with C1 only and
     * collects with one thread: it lives seconds, and on two cores beside the suite's other JVMs the optimising
     * compiler's and the parallel collector's threads cost more than they return.
     */
    public static List<String> command(String... jvmArgsAndMain) {
        List<String> cmd = new ArrayList<>(List.of("perl", "-e", "$SIG{INT} = $SIG{TERM} = 'DEFAULT'; exec @ARGV or die \"exec: $!\""));
        cmd.addAll(java("-cp", System.getProperty("java.class.path")));
        cmd.addAll(List.of(jvmArgsAndMain));
        return cmd;
    }

    /**
     * {@code java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC <args...>} of the test JVM's Java: the short-lived JVMs tests start
     * (txfuzz, a printed program, a recipe's workers) compile with C1 only and collect with one thread, see above.
     */
    public static List<String> java(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        cmd.addAll(List.of(args));
        return cmd;
    }
}
