package txfuzz.campaign;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Findings of one class waiting for their reduction and final filing. Whoever files (a worker, or the filer of several)
 * never waits for a reduction, yet each finding is filed against the index exactly as the findings before it left it —
 * the same duplicates and representatives as when every finding was reduced inline: a finding's reduction, which no
 * other finding changes, is {@linkplain Settler#prepare prepared} by whichever thread is free, and findings are
 * {@linkplain Settler#complete completed} (looked up in the index and filed) strictly in the order they were offered.
 *
 * <p>The lane has a thread of its own, which may be <em>held</em> (it settles nothing until {@link #finish}: documented
 * findings wait while cases still run and no core is spare), and workers whose cases are spent {@linkplain #help help}.
 *
 * @param <T> what is queued: a finding and what its filing needs
 * @param <R> what preparing it gives: its reduction
 */
final class ReductionLane<T, R> {
    /** How a finding is settled; each thread brings its own (its own executor and oracles). */
    interface Settler<T, R> {
        /** Out of order, on whichever thread is free: the work no other finding changes (the reduction); null when none is due. */
        R prepare(T item);

        /** In the order offered: files the finding, with what {@link #prepare} gave. */
        void complete(T item, R prepared);
    }

    private static final class Entry<T, R> {
        final T item;
        boolean claimed;
        boolean prepared;
        R result;

        Entry(T item) {
            this.item = item;
        }
    }

    private final Deque<Entry<T, R>> queue = new ArrayDeque<>();
    private final Consumer<RuntimeException> failed;
    private final Thread thread;
    /** Whether the lane's own thread may settle (helpers always may). */
    private boolean ownOpen;
    /** No more findings will be offered: settlers stop once the queue is empty. */
    private boolean closed;
    /** The head is being completed (by one thread at a time, so completions keep their order). */
    private boolean completing;
    /** Set when settling threw: the lane settles nothing more; the first failure is being reported. */
    private boolean failing;
    /** Set once that failure is reported: the lane takes nothing more (its findings stay on disk as found). */
    private boolean broken;
    /** The queue's length, readable without the lane's lock (the progress line). */
    private volatile int waiting;

    /**
     * @param name   the lane thread's name
     * @param open   whether its own thread settles findings as they come, or only once {@link #finish} is called
     * @param own    how the lane's own thread settles
     * @param failed told once of the failure that broke the lane
     */
    ReductionLane(String name, boolean open, Settler<T, R> own, Consumer<RuntimeException> failed) {
        this.ownOpen = open;
        this.failed = failed;
        this.thread = new Thread(() -> settleWhileOpen(own), name);
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY); // a hint only (most Linux JVMs ignore it); the gate is what keeps cores for the workers
        thread.start();
    }

    /**
     * Files {@code item}: when nothing of this lane waits, {@code fileNow} decides it (true: filed for good, nothing to
     * settle; false: filed as found, to be reduced); otherwise {@code fileAsFound} writes it as found and it waits its
     * turn, since the findings before it may change what it is a duplicate of. Returns whether it was filed for good.
     * Both run under the lane's lock, so no finding completes between the look at the queue and the filing.
     */
    synchronized boolean offer(T item, BooleanSupplier fileNow, Runnable fileAsFound) {
        if (closed) {
            throw new IllegalStateException("a finding was offered after the lane was closed");
        }
        if (queue.isEmpty() && !broken) {
            if (fileNow.getAsBoolean()) {
                return true;
            }
        } else {
            fileAsFound.run();
        }
        if (!broken) {
            queue.addLast(new Entry<>(item));
            waiting = queue.size();
            notifyAll();
        }
        return false;
    }

    /** Lets the lane's own thread settle findings (a core became spare). */
    synchronized void open() {
        ownOpen = true;
        notifyAll();
    }

    /** No more findings will be offered: the settlers end once the queue is empty. */
    synchronized void close() {
        closed = true;
        notifyAll();
    }

    /** Waits until every finding offered so far is settled (run --max-bugs counts a bug candidate only once it is). */
    synchronized void awaitSettled() {
        boolean interrupted = false;
        while (!queue.isEmpty() && !broken) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true; // a stop is asked through the campaign's flag, which the settling sees
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The calling thread (a worker whose cases are spent) settles findings with {@code s} until the lane is closed and empty. */
    void help(Settler<T, R> s) {
        while (settleOne(s, false)) {
            // one finding prepared or completed
        }
    }

    /** Closes the lane, lets its own thread settle what is left beside any helpers, and returns once that thread ended. */
    void finish() {
        synchronized (this) {
            closed = true;
            ownOpen = true;
            notifyAll();
        }
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Findings offered and not yet filed for good, those being reduced included. */
    int waiting() {
        return waiting;
    }

    private void settleWhileOpen(Settler<T, R> own) {
        while (settleOne(own, true)) {
            // one finding prepared or completed
        }
    }

    /** Prepares or completes one finding; false once there is nothing more to do (closed and empty, or broken). */
    private boolean settleOne(Settler<T, R> s, boolean gated) {
        Entry<T, R> toComplete = null;
        Entry<T, R> toPrepare = null;
        synchronized (this) {
            while (true) {
                if (failing || closed && queue.isEmpty()) {
                    return false;
                }
                if (!gated || ownOpen) {
                    Entry<T, R> head = queue.peekFirst();
                    if (head != null && head.prepared && !completing) {
                        completing = true;
                        toComplete = head;
                        break;
                    }
                    toPrepare = queue.stream().filter(e -> !e.claimed).findFirst().orElse(null);
                    if (toPrepare != null) {
                        toPrepare.claimed = true;
                        break;
                    }
                }
                try {
                    wait();
                } catch (InterruptedException e) {
                    // only the JVM's end interrupts a settler; the campaign's stop flag ends reductions early instead
                }
            }
        }
        try {
            if (toComplete != null) {
                s.complete(toComplete.item, toComplete.result);
                synchronized (this) {
                    queue.pollFirst();
                    completing = false;
                    waiting = queue.size();
                    notifyAll();
                }
            } else {
                R r = s.prepare(toPrepare.item);
                synchronized (this) {
                    toPrepare.result = r;
                    toPrepare.prepared = true;
                    notifyAll();
                }
            }
            return true;
        } catch (RuntimeException | Error e) {
            boolean first;
            synchronized (this) {
                first = !failing;
                failing = true;
            }
            // told before anyone waiting is released, so whoever awaitSettled returns to sees the failure reported
            if (first) {
                failed.accept(e instanceof RuntimeException r ? r : new IllegalStateException(e));
            }
            synchronized (this) {
                broken = true;
                queue.clear();
                waiting = 0;
                notifyAll();
            }
            return false;
        }
    }
}
