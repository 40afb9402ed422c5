package txfuzz.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Generates histories of a simulated key-value-ish workload over one table, for benchmarks and
 * tests. Transactions run one after another (transaction i commits at time i); each reads rows
 * each from its own snapshot up to {@code staleness} commits old, and writes rows through a locking read of
 * their latest version. With {@code staleness == 0} the history is serial, hence anomaly-free;
 * with staleness it has lost updates, read skews, write skews … in realistic proportions.
 *
 * @param txns              number of transactions
 * @param sessions          sessions; transaction i runs in session i % sessions
 * @param rows              live rows at any time (deletes are followed by inserts of fresh rows)
 * @param hot               how many of them are hot: they take {@code hotShare} of all accesses, and a
 *                          write to one deletes it (and inserts a fresh hot row) a fifth of the time, so
 *                          their wLists stay short while transactions keep colliding on them
 * @param hotShare          share of reads and writes that go to the hot rows
 * @param reads             item reads per transaction
 * @param writes            writes per transaction
 * @param staleness         how many commits old a read's snapshot may be
 * @param abortRate         share of transactions that abort (their writes are recorded, not applied)
 * @param deleteRate        share of writes that delete the row (and insert a fresh one)
 * @param predicateRate     share of transactions that also read one "bucket" of rows by predicate
 * @param buckets           number of distinct predicates (rows are spread over them by rowId)
 * @param seed              random seed
 */
public record SyntheticHistory(int txns, int sessions, int rows, int hot, double hotShare, int reads, int writes, int staleness, double abortRate, double deleteRate,
                               double predicateRate, int buckets, long seed) {

    /** A serial (hence anomaly-free) history: 8 sessions, 4 reads and 2 writes per transaction, 5% aborts. */
    public static SyntheticHistory serial(int txns, long seed) {
        return stale(txns, 0, seed);
    }

    /** Like {@link #serial} but every read may see a snapshot up to {@code staleness} commits old. */
    public static SyntheticHistory stale(int txns, int staleness, long seed) {
        int rows = Math.max(64, txns / 10);
        return new SyntheticHistory(txns, 8, rows, 32, 0.3, 4, 2, staleness, 0.05, 0.02, 0.02, Math.max(1, rows / 40), seed);
    }

    private static final class Row {
        final long id;
        long[] order = new long[4];
        int len;
        int[] times = new int[2];
        int[] lens = new int[2];
        int changes;
        int deletedAt = Integer.MAX_VALUE;

        Row(long id, long creator, int time) {
            this.id = id;
            order[len++] = creator;
            record(time);
        }

        void append(long writer, int time) {
            if (len == order.length) {
                order = Arrays.copyOf(order, len * 2);
            }
            order[len++] = writer;
            record(time);
        }

        void record(int time) {
            if (changes == times.length) {
                times = Arrays.copyOf(times, changes * 2);
                lens = Arrays.copyOf(lens, changes * 2);
            }
            times[changes] = time;
            lens[changes++] = len;
        }

        /** Length of the version visible at {@code time}, 0 if the row did not exist (or was deleted). */
        int lenAt(int time) {
            if (time >= deletedAt) {
                return 0;
            }
            int lo = 0;
            int hi = changes - 1;
            int found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (times[mid] <= time) {
                    found = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return found < 0 ? 0 : lens[found];
        }

        WList version(int n) {
            return WList.of(Arrays.copyOf(order, n));
        }

        String name() {
            return "r" + id;
        }
    }

    /** Each read sees the database as of a commit up to {@code staleness} commits ago (0: the latest). */
    private int snapshot(SplittableRandom rnd, int i) {
        return staleness == 0 ? i : Math.max(0, i - rnd.nextInt(staleness + 1));
    }

    private int pick(SplittableRandom rnd, int size) {
        int h = Math.min(hot, size);
        if (h >= size) {
            return rnd.nextInt(size);
        }
        return h > 0 && rnd.nextDouble() < hotShare ? rnd.nextInt(h) : h + rnd.nextInt(size - h);
    }

    public History generate() {
        List<Transaction> out = new ArrayList<>(txns);
        generate(out::add);
        return History.of(out);
    }

    /**
     * The same transactions, handed to {@code sink} one at a time as they end: a writer can stream them
     * to a file without the history ever being held (ten million transactions as objects do not fit the
     * default heap; the generator's own state is the rows' version orders).
     */
    public void generate(Consumer<Transaction> sink) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Row> live = new ArrayList<>();
        List<List<Row>> byBucket = new ArrayList<>();
        for (int b = 0; b < buckets; b++) {
            byBucket.add(new ArrayList<>());
        }
        for (int i = 0; i < rows; i++) {
            Row r = new Row(i + 1, History.INITIAL, 0);
            live.add(r);
            byBucket.get((int) (r.id % buckets)).add(r);
        }
        long nextRowId = rows + 1;
        for (int i = 0; i < txns; i++) {
            long id = i + 1;
            int now = i + 1;
            boolean abort = rnd.nextDouble() < abortRate;
            List<Op> ops = new ArrayList<>();
            int stmt = 1;
            for (int k = 0; k < reads; k++) {
                Row r = live.get(pick(rnd, live.size()));
                int n = r.lenAt(snapshot(rnd, i));
                if (n > 0) {
                    ops.add(new Read(stmt++, "t", r.name(), r.version(n), false));
                }
            }
            if (rnd.nextDouble() < predicateRate) {
                int b = rnd.nextInt(buckets);
                int snapshot = snapshot(rnd, i);
                List<RowVersion> seen = new ArrayList<>();
                for (Row r : byBucket.get(b)) {
                    int n = r.lenAt(snapshot);
                    if (n > 0) {
                        seen.add(new RowVersion(r.name(), r.version(n)));
                    }
                }
                ops.add(new PredicateRead(stmt++, "t", "bucket = " + b, false, seen));
            }
            // writes go through a locking read of the latest version; a committed transaction's writes are
            // applied at once (it commits at time `now`, after its own reads), an aborted one writes once and stops
            for (int k = 0; k < writes; k++) {
                int pick = pick(rnd, live.size());
                Row r = live.get(pick);
                WList cur = r.version(r.len);
                ops.add(new Read(stmt, "t", r.name(), cur, true));
                if (rnd.nextDouble() < (pick < hot ? 0.2 : deleteRate)) {
                    ops.add(new Write(stmt++, "t", r.name(), WriteKind.DELETE, cur.append(id)));
                    Row fresh = new Row(nextRowId++, id, now);
                    ops.add(new Write(stmt++, "t", fresh.name(), WriteKind.INSERT, WList.of(id)));
                    if (!abort) {
                        r.append(id, now);
                        r.deletedAt = now;
                        live.set(pick, fresh);
                        byBucket.get((int) (fresh.id % buckets)).add(fresh);
                    }
                } else {
                    ops.add(new Write(stmt++, "t", r.name(), WriteKind.UPDATE, cur.append(id)));
                    if (!abort) {
                        r.append(id, now);
                    }
                }
                if (abort) {
                    break;
                }
            }
            sink.accept(new Transaction(id, i % sessions, i / sessions, abort ? Outcome.ABORTED : Outcome.COMMITTED, List.of(), ops));
        }
    }
}
