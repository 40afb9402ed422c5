package txfuzz.gen;

import java.util.List;
import java.util.SplittableRandom;

/** The generator's only source of randomness: derived from (seed, iteration), nothing global. */
final class Rng {
    private final SplittableRandom random;

    Rng(long seed, long iteration) {
        this.random = new SplittableRandom(mix(mix(seed) ^ (iteration * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L)));
    }

    /** SplitMix64's finaliser: neighbouring (seed, iteration) pairs give unrelated streams. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** 0 ≤ result < bound. */
    int nextInt(int bound) {
        return random.nextInt(bound);
    }

    /** lo ≤ result ≤ hi. */
    int between(int lo, int hi) {
        return lo + random.nextInt(hi - lo + 1);
    }

    boolean chance(double p) {
        return random.nextDouble() < p;
    }

    <T> T pick(List<T> items) {
        return items.get(random.nextInt(items.size()));
    }

    /** An index chosen with the given non-negative weights (at least one positive). */
    int weighted(int... weights) {
        int total = 0;
        for (int w : weights) {
            total += w;
        }
        int x = random.nextInt(total);
        for (int i = 0; i < weights.length; i++) {
            x -= weights[i];
            if (x < 0) {
                return i;
            }
        }
        throw new IllegalStateException("no positive weight");
    }
}
