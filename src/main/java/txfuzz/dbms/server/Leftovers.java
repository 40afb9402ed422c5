package txfuzz.dbms.server;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What {@code txfuzz clean} removes from the private directory. First what runs that no longer exist
 * left ({@link Lease#abandoned()}: their servers are stopped, their data directories and logs removed);
 * then, only when no txfuzz process uses the directory ({@link HomeLock} free, no lease of a live
 * process, no program of it running), everything else in it and its {@link MemoryDirectory} twin: unpacked binaries,
 * half-done unpackings, logs kept after a crash. What a live run holds is never touched.
 */
public final class Leftovers {
    private Leftovers() {
    }

    /**
     * Cleans the private directory (or, with {@code dryRun}, says what it would remove and changes
     * nothing), saying each step in one line. Returns how many things were (or would be) removed.
     */
    public static int clean(boolean dryRun, Consumer<String> say) {
        Path home = PrivateDirectory.location();
        PrivateDirectory.checkAncestors(home);
        if (!Files.exists(home, LinkOption.NOFOLLOW_LINKS)) {
            say.accept("txfuzz: nothing to clean: " + home + " does not exist");
            return 0;
        }
        try {
            PrivateDirectory.check(home);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot check " + home + ": " + e.getMessage(), e);
        }
        Optional<AutoCloseable> exclusive = HomeLock.exclusive(home);
        try {
            int count = 0;
            Set<Long> stopping = new HashSet<>();
            for (Lease.Abandoned a : Lease.abandoned()) {
                if (!dryRun) {
                    a.remove();
                }
                a.server().ifPresent(h -> {
                    stopping.add(h.pid());
                    h.descendants().forEach(d -> stopping.add(d.pid()));
                });
                say.accept(a.describe(!dryRun));
                count++;
            }
            String inUse = exclusive.isEmpty() ? "a running txfuzz process uses it"
                    : Lease.held() > 0 ? "a running txfuzz process holds a lease in it"
                    : programsRunningFrom(home, stopping);
            if (inUse != null) {
                say.accept("txfuzz: left the unpacked binaries and other files in " + home + ": " + inUse);
                return count;
            }
            List<Path> entries = entries(home);
            MemoryDirectory.existing(home).ifPresent(entries::add); // the servers' data directories' twin in memory
            for (Path entry : entries) {
                if (!dryRun) {
                    Lease.deleteTree(entry);
                }
                say.accept("txfuzz: " + (dryRun ? "would remove " : "removed ") + entry);
                count++;
            }
            if (count == 0) {
                say.accept("txfuzz: nothing to clean in " + home);
            }
            return count;
        } finally {
            exclusive.ifPresent(Leftovers::release);
        }
    }

    /**
     * Removes the entries of {@code dir} whose name matches {@code nameWithPid} (a regular expression whose
     * first group is the pid of the process that made it) when that process no longer runs: what versions
     * of txfuzz before leases named everything left when killed. A pid that runs (its maker, or another
     * process that has the pid now) keeps its entries.
     */
    public static void removeOfEndedProcesses(Path dir, String nameWithPid) {
        java.util.regex.Pattern pattern = java.util.regex.Pattern.compile(nameWithPid);
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                java.util.regex.Matcher m = pattern.matcher(p.getFileName().toString());
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).filter(ProcessHandle::isAlive).isEmpty()) {
                    Lease.deleteTree(p);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // nothing to remove, or tried again next time
        }
    }

    /** Everything in the private directory but the lock file and the (now empty) lease folder. */
    private static List<Path> entries(Path home) {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(home)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (!name.equals(HomeLock.NAME) && !name.equals("leases")) {
                    found.add(p);
                }
            }
        } catch (IOException e) {
            return found;
        }
        found.sort(null);
        return found;
    }

    /** Why the directory is in use: a process (not one about to be stopped) runs a program from it; null when none does. */
    private static String programsRunningFrom(Path home, Set<Long> stopping) {
        String prefix = home + "/";
        return ProcessHandle.allProcesses()
                .filter(h -> !stopping.contains(h.pid()) && h.isAlive())
                .filter(h -> h.info().command().map(c -> c.startsWith(prefix)).orElse(false))
                .findFirst()
                .map(h -> "process " + h.pid() + " (" + h.info().command().orElse("?") + ") runs a program from it")
                .orElse(null);
    }

    private static void release(AutoCloseable lock) {
        try {
            lock.close();
        } catch (Exception ignored) {
            // released when this process ends
        }
    }
}
