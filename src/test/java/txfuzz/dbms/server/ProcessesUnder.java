package txfuzz.dbms.server;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** For tests: the processes whose command line names a directory, with what /proc shows of them. */
public final class ProcessesUnder {
    private ProcessesUnder() {
    }

    /** One process: its id, its arguments and its environment as /proc gives them (NUL-separated). */
    public record Seen(long pid, String arguments, String environment) {
    }

    /** Every process whose arguments name {@code dir}; fails when there is none (so no check is vacuous). */
    public static List<Seen> naming(Path dir) {
        List<Seen> seen = new ArrayList<>();
        ProcessHandle.allProcesses().forEach(h -> {
            try {
                String args = read(h.pid(), "cmdline");
                if (args.contains(dir.toString())) {
                    seen.add(new Seen(h.pid(), args, read(h.pid(), "environ")));
                }
            } catch (IOException | RuntimeException gone) {
                // the process ended, or is another user's: not one of the server's
            }
        });
        assertFalse(seen.isEmpty(), "no running process names " + dir);
        return seen;
    }

    private static String read(long pid, String file) throws IOException {
        return new String(Files.readAllBytes(Path.of("/proc", String.valueOf(pid), file)), StandardCharsets.UTF_8);
    }
}
