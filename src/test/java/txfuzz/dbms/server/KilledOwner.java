package txfuzz.dbms.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/** For tests of the sweep: a lease made to look as a txfuzz process that was killed (SIGKILL) left it. */
public final class KilledOwner {
    private KilledOwner() {
    }

    /** The one lease in the lease folder. */
    public static Path onlyLease() throws IOException {
        try (var leases = Files.list(Lease.folder())) {
            return leases.filter(p -> p.toString().endsWith(".lease")).findFirst().orElseThrow();
        }
    }

    /** Rewrites {@code lease} so that its owner is a process that has ended, as after SIGKILL; returns that process's pid. */
    public static long of(Path lease) throws IOException, InterruptedException {
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor(10, TimeUnit.SECONDS);
        rewrite(lease, Map.of("ownerPid", String.valueOf(ended.pid()), "ownerStart", ""));
        return ended.pid();
    }

    /** Sets {@code values} in {@code lease}, keeping its other keys. */
    public static void rewrite(Path lease, Map<String, String> values) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(lease)) {
            p.load(in);
        }
        values.forEach(p::setProperty);
        try (OutputStream out = Files.newOutputStream(lease)) {
            p.store(out, null);
        }
    }
}
