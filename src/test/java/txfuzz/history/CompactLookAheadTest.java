package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compact reader looks ahead in its buffer at each transaction's rows before reading them (to load their state
 * together): a look only, so a damaged file still gets the reader's own error, never an exception of the look ahead's,
 * wherever the damage is, near the buffer's end included, and an intact one reads back as it was written.
 */
@Tag("unit")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CompactLookAheadTest {
    @TempDir
    Path dir;

    @Test
    void aDamagedFileIsReadOrNamedAsDamagedNeverAnotherError() throws Exception {
        History h = SyntheticHistory.stale(4_000, 4, 3).generate(); // some 330 KB: the reader's 64 KB buffer refills mid-transaction
        Path f = dir.resolve("h.txh");
        CompactHistory.write(h, f);
        byte[] all = Files.readAllBytes(f);
        assertTrue(all.length > 3 * 65_536, all.length + " bytes");
        assertEquals(h, HistoryFiles.read(f));
        SplittableRandom rnd = new SplittableRandom(5);
        int rejected = 0;
        for (int k = 0; k < 400; k++) {
            byte[] bad = all.clone();
            int at = CompactHistory.MAGIC.length + rnd.nextInt(all.length - CompactHistory.MAGIC.length);
            // large values too: a row or string reference past the table or past an int, a count of many new entries
            switch (k % 4) {
                case 0 -> bad[at] = (byte) 0xff;
                case 1 -> bad[at] = (byte) 0x80;
                case 2 -> bad[at] = (byte) rnd.nextInt(256);
                default -> {
                    for (int i = at; i < Math.min(all.length, at + 5); i++) {
                        bad[i] = (byte) 0xff; // a number whose low 32 bits are all ones: -1 as an int
                    }
                    if (at + 5 < all.length) {
                        bad[at + 5] = 0x07;
                    }
                }
            }
            Files.write(f, bad);
            try {
                HistoryFiles.read(f);
            } catch (HistoryFormatException e) {
                rejected++;
                assertTrue(e.getMessage().startsWith(f + ": "), e.getMessage());
            }
        }
        assertTrue(rejected > 0);
    }
}
