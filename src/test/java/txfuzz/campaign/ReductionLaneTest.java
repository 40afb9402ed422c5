package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reduction lane's order and scheduling, on plain items (the lane knows nothing of engines; the campaign's own
 * tests run it on real H2): whoever offers never waits for a preparation, items are completed in the order offered
 * however their preparations interleave, a held lane prepares nothing until it is finished or helped, and a failure
 * ends the lane without hanging whoever waits on it.
 */
@Timeout(60)
class ReductionLaneTest {
    /** Records completions in order; a preparation of an item with a gate waits for it (a long reduction). */
    private static final class Recording implements ReductionLane.Settler<Integer, String> {
        final List<Integer> completed = java.util.Collections.synchronizedList(new ArrayList<>());
        final Map<Integer, CountDownLatch> gates = new ConcurrentHashMap<>();
        final Map<Integer, CountDownLatch> started = new ConcurrentHashMap<>();

        CountDownLatch started(int item) {
            return started.computeIfAbsent(item, k -> new CountDownLatch(1));
        }

        @Override
        public String prepare(Integer item) {
            started(item).countDown();
            CountDownLatch gate = gates.get(item);
            if (gate != null) {
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            return "reduced " + item;
        }

        @Override
        public void complete(Integer item, String prepared) {
            assertEquals("reduced " + item, prepared);
            completed.add(item);
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean queue(ReductionLane<Integer, String> lane, int item) {
        return lane.offer(item, () -> false, () -> { });
    }

    @Test
    void offeringNeverWaitsForAPreparationAndItemsCompleteInTheOrderOffered() throws Exception {
        Recording r = new Recording();
        CountDownLatch firstMayEnd = new CountDownLatch(1);
        r.gates.put(1, firstMayEnd);
        ReductionLane<Integer, String> lane = new ReductionLane<>("test-lane", true, r, e -> { });
        queue(lane, 1);
        assertTrue(r.started(1).await(30, TimeUnit.SECONDS), "the lane's thread prepares the first item");
        // the first is still being prepared: later items are taken at once, and a helper prepares them meanwhile
        queue(lane, 2);
        queue(lane, 3);
        assertEquals(3, lane.waiting());
        Thread helper = new Thread(() -> lane.help(r), "test-helper");
        helper.start();
        assertTrue(r.started(3).await(30, TimeUnit.SECONDS), "the helper prepared past the item in hand");
        assertTrue(r.completed.isEmpty(), "nothing completes before the first: " + r.completed);
        firstMayEnd.countDown();
        lane.close();
        helper.join();
        lane.finish();
        assertEquals(List.of(1, 2, 3), r.completed);
        assertEquals(0, lane.waiting());
    }

    @Test
    void anItemFiledForGoodIsNotQueuedButOneBehindAnotherIsWrittenAsFoundAndWaits() throws Exception {
        Recording r = new Recording();
        ReductionLane<Integer, String> held = new ReductionLane<>("test-lane", false, r, e -> { });
        List<String> filed = new ArrayList<>();
        assertTrue(held.offer(1, () -> filed.add("1 for good"), () -> filed.add("1 as found")), "nothing waits: filed now");
        assertFalse(held.offer(2, () -> !filed.add("2 as found, to reduce"), () -> filed.add("2 behind")));
        assertFalse(held.offer(3, () -> filed.add("3 for good"), () -> filed.add("3 as found, behind 2")),
                "the index may change before its turn: it waits even though it would be filed for good now");
        assertEquals(List.of("1 for good", "2 as found, to reduce", "3 as found, behind 2"), filed);
        assertEquals(2, held.waiting());
        assertFalse(r.started(2).await(0, TimeUnit.SECONDS), "a held lane prepares nothing");
        held.finish();
        assertEquals(List.of(2, 3), r.completed);
    }

    @Test
    void aFailureEndsTheLaneReportsItOnceAndReleasesWhoeverWaits() throws Exception {
        AtomicReference<RuntimeException> reported = new AtomicReference<>();
        RuntimeException boom = new IllegalStateException("cannot write the finding");
        List<Integer> completed = new ArrayList<>();
        ReductionLane<Integer, String> lane = new ReductionLane<>("test-lane", true, new ReductionLane.Settler<>() {
            @Override
            public String prepare(Integer item) {
                return null;
            }

            @Override
            public void complete(Integer item, String prepared) {
                if (item == 2) {
                    throw boom;
                }
                completed.add(item);
            }
        }, e -> {
            // a report takes time (it writes to disk): whoever awaits the lane must still find it made
            sleepQuietly(200);
            assertTrue(reported.compareAndSet(null, e), "reported once");
        });
        queue(lane, 1);
        queue(lane, 2);
        queue(lane, 3);
        lane.awaitSettled(); // returns: the lane broke
        assertSame(boom, reported.get());
        assertEquals(List.of(1), completed);
        assertEquals(0, lane.waiting());
        List<String> filed = new ArrayList<>();
        assertFalse(lane.offer(4, () -> filed.add("4 now"), () -> filed.add("4 as found")));
        assertEquals(List.of("4 as found"), filed, "a broken lane still writes what is offered, as found");
        lane.finish();
    }
}
