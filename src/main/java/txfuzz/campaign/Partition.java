package txfuzz.campaign;

/**
 * Which iterations of a campaign one process runs ({@code run --worker i/N}): iteration k runs in
 * worker k mod N. Each case is still derived from (seed, iteration) alone, so N processes with the
 * same seed never run the same case, together run what one process would, and any case replays alone.
 *
 * @param index this worker, 0 ≤ index < count
 * @param count the number of workers
 */
public record Partition(int index, int count) {
    /** One process runs every iteration. */
    public static final Partition WHOLE = new Partition(0, 1);

    public Partition {
        if (count < 1 || index < 0 || index >= count) {
            throw new IllegalArgumentException("a worker is i/N with 0 <= i < N, not " + index + "/" + count);
        }
    }

    /** "i/N" as --worker takes it; IllegalArgumentException with a one-line message otherwise. */
    public static Partition parse(String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\s*(\\d{1,9})\\s*/\\s*(\\d{1,9})\\s*").matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("--worker takes i/N (this worker's index from 0, and the number of workers), e.g. 0/3; not '" + text + "'");
        }
        int i = Integer.parseInt(m.group(1));
        int n = Integer.parseInt(m.group(2));
        if (n < 1 || i >= n) {
            throw new IllegalArgumentException("--worker " + text.strip() + ": the index must be at least 0 and below the number of workers (0/" + Math.max(n, 1)
                    + " … " + (Math.max(n, 1) - 1) + "/" + Math.max(n, 1) + ")");
        }
        return new Partition(i, n);
    }

    /** Whether iteration k is this worker's. */
    public boolean runs(long k) {
        return Math.floorMod(k, count) == index;
    }

    /** The one-process partition of the whole space. */
    public boolean whole() {
        return count == 1;
    }

    @Override
    public String toString() {
        return index + "/" + count;
    }
}
