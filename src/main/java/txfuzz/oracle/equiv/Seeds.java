package txfuzz.oracle.equiv;

import java.util.Random;

/** Seeded randomness for the oracle's choices. */
final class Seeds {
    private Seeds() {
    }

    /**
     * A {@link Random} for {@code seed}, the seed first scrambled (MurmurHash3's fmix64): the first
     * {@code nextInt(2)} of {@code new Random(s)} is the same for many consecutive seeds, so
     * campaigns that number their seeds 0, 1, 2, … would otherwise make the same choice every time.
     */
    static Random random(long seed) {
        long z = seed;
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return new Random(z ^ (z >>> 33));
    }
}
