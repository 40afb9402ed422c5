package txfuzz.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * What a long run must keep flat, sampled from the process itself every period: resident memory
 * (/proc/self/status VmRSS), live threads, open file descriptors (/proc/self/fd) and the heap used
 * after a full collection asked for at each sample (the live heap).
 */
final class SoakSampler implements AutoCloseable {
    /** One sample; -1 where the platform does not tell (no /proc). */
    record Sample(long secondsIn, long rssKb, int threads, int openFiles, long heapAfterGcKb, long cases) {}

    /** A figure's first- and last-quarter maxima and whether it stayed within its bound. */
    record Verdict(String figure, long firstQuarterMax, long lastQuarterMax, String bound, boolean flat) {}

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "txfuzz-soak-sampler");
        t.setDaemon(true);
        return t;
    });
    private final List<Sample> samples = new ArrayList<>();
    private final long start = System.nanoTime();
    private final java.util.function.LongSupplier cases;
    private final java.util.function.Consumer<Sample> onSample;

    SoakSampler(long periodSeconds, java.util.function.LongSupplier cases, java.util.function.Consumer<Sample> onSample) {
        this.cases = cases;
        this.onSample = onSample;
        timer.scheduleAtFixedRate(this::sample, 0, periodSeconds, TimeUnit.SECONDS);
    }

    private void sample() {
        Sample s = now((System.nanoTime() - start) / 1_000_000_000L, cases.getAsLong());
        synchronized (samples) {
            samples.add(s);
        }
        onSample.accept(s);
    }

    /** Takes a last sample and stops; the samples in the order taken. */
    List<Sample> finish() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sample();
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    static Sample now(long secondsIn, long cases) {
        return new Sample(secondsIn, rssKb(), ManagementFactory.getThreadMXBean().getThreadCount(),
                openFiles(), heapAfterGcKb(), cases);
    }

    static long rssKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).replace("kB", "").strip());
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux: no figure
        }
        return -1;
    }

    static int openFiles() {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return (int) fds.count() - 1; // less the descriptor this listing holds open
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * The live heap: a full collection is asked for first (once a sample period), then the heap in use as the most
     * recent collection left it (all heap pools); -1 before any. Without the full collection the figure is what a
     * young collection left, old garbage included, which climbs until the collector's first mixed collection and
     * then drops: a 30-minute H2 soak read 14 → 190 → 44 MB that way with no leak behind it.
     */
    static long heapAfterGcKb() {
        System.gc();
        com.sun.management.GcInfo latest = null;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof com.sun.management.GarbageCollectorMXBean g && g.getLastGcInfo() != null
                    && (latest == null || g.getLastGcInfo().getEndTime() > latest.getEndTime())) {
                latest = g.getLastGcInfo();
            }
        }
        if (latest == null) {
            return -1;
        }
        java.util.Set<String> heapPools = new java.util.HashSet<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        long used = 0;
        for (var e : latest.getMemoryUsageAfterGc().entrySet()) {
            used += heapPools.contains(e.getKey()) ? e.getValue().getUsed() : 0;
        }
        return used / 1024;
    }

    /**
     * Whether each figure stayed flat: the maximum of the last quarter of the samples against the
     * maximum of the first quarter. Maxima, not means, because a leak shows as a rising ceiling and a
     * single sample catches a thread or descriptor a case holds only briefly. The first quarter holds
     * the warm-up (classes loaded, the heap grown to its working size, pools filled), so a steady
     * process has reached its ceiling there; what is above it later grew with time. Bounds: threads and
     * open files may end at most 10% (and at least 4) above, since a run holds a varying few of either
     * for the case in hand (session threads, a database's files, a finding being written) while a leak
     * of one per case passes any constant after minutes; memory may end 25% above, the allowance of a
     * collector that sizes its heap by demand; a leak of a few hundred bytes a case is still caught
     * by the heap after GC in a run long enough, not by this bound in a short one.
     */
    static List<Verdict> verdicts(List<Sample> samples) {
        List<Verdict> out = new ArrayList<>();
        out.add(verdict(samples, "resident memory (kB)", Sample::rssKb, 1.25, 0));
        out.add(verdict(samples, "threads", s -> s.threads(), 1.10, 4));
        out.add(verdict(samples, "open files", s -> s.openFiles(), 1.10, 4));
        out.add(verdict(samples, "heap after GC (kB)", Sample::heapAfterGcKb, 1.25, 0));
        return out;
    }

    private static Verdict verdict(List<Sample> samples, String name, ToLongFunction<Sample> figure, double factor, long slack) {
        int quarter = Math.max(1, samples.size() / 4);
        long first = samples.subList(0, quarter).stream().mapToLong(figure).max().orElse(-1);
        long last = samples.subList(samples.size() - quarter, samples.size()).stream().mapToLong(figure).max().orElse(-1);
        long allowed = Math.max((long) Math.ceil(first * factor), first + slack);
        String bound = String.format(java.util.Locale.ROOT, "last-quarter max <= %s (first-quarter max %s%s)", allowed,
                factor == 1 ? "" : "x" + factor, slack == 0 ? "" : ", at least +" + slack);
        return new Verdict(name, first, last, bound, first < 0 || last <= allowed);
    }
}
