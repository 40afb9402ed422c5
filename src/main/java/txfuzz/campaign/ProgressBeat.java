package txfuzz.campaign;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A daemon thread that calls {@code beat} at the progress interval while a campaign runs, so the
 * progress line keeps coming while the loop itself is busy in one long step (a reduction can take
 * its whole budget). Nothing when progress lines are off.
 */
final class ProgressBeat implements AutoCloseable {
    private final ScheduledExecutorService timer;

    ProgressBeat(Duration every, Runnable beat) {
        if (every == null || every.isZero() || every.isNegative()) {
            timer = null;
            return;
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "txfuzz-progress");
            t.setDaemon(true);
            return t;
        });
        long nanos = every.toNanos();
        timer.scheduleAtFixedRate(() -> {
            try {
                beat.run();
            } catch (RuntimeException e) {
                // a progress line that could not be printed must not end the beat, nor the run
            }
        }, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
