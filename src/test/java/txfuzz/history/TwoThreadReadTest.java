package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compact history read on two threads (one decoding the bytes, one keeping the rows' state) gives the same columns as on
 * one, and a damaged file the same error: the first defect in the file, named with the same byte and transaction, whether
 * the decoder finds it (a bad number, a reference past the string table, a cut) or the reading side (a list that
 * contradicts its row's order, an operation its transaction may not have), early in the file or late.
 */
@Tag("unit")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TwoThreadReadTest {
    @TempDir
    Path dir;

    /** The columns as text: transactions, every operation's code, statement, row and list, the rows and their orders. */
    private static String columns(History h) {
        HistoryColumns c = HistoryColumns.of(h);
        StringBuilder sb = new StringBuilder();
        sb.append(c.meta).append('\n').append(Arrays.toString(c.strings)).append('\n');
        for (int t = 0; t < c.size; t++) {
            sb.append(c.ids[t]).append(' ').append(c.sessions[t]).append(' ').append(c.seqs[t]).append(' ').append(c.outcomes[t])
                    .append(' ').append(c.opStart[t]).append('\n');
        }
        for (int o = 0; o < c.ops; o++) {
            sb.append(c.code(o)).append(' ').append(c.stmt(o)).append(' ').append(c.row(o)).append(' ').append(c.len(o)).append('\n');
        }
        for (int r = 0; r < c.rows; r++) {
            sb.append(c.rowTable[r]).append(' ').append(c.rowName[r]).append(' ').append(Arrays.toString(c.rowOrder[r])).append('\n');
        }
        for (long[] own : c.ownLists) {
            sb.append(Arrays.toString(own)).append('\n');
        }
        return sb.toString();
    }

    /** What reading the file gives: its columns, or its error's message. */
    private static String read(Path f, boolean twoThreads) {
        try {
            return columns(CompactHistory.read(f, twoThreads));
        } catch (HistoryFormatException e) {
            return "error: " + e.getMessage();
        }
    }

    @Test
    void anIntactFileGivesTheSameColumnsAndHistory() throws Exception {
        // stale snapshots: predicate reads, deletes, aborts (lists of their own); several chunks of the decoder's values
        for (History h : List.of(SyntheticHistory.stale(6_000, 4, 3).generate(), SyntheticHistory.serial(3_000, 2).generate())) {
            Path f = dir.resolve("h.txh");
            CompactHistory.write(h, f);
            History one = CompactHistory.read(f, false);
            History two = CompactHistory.read(f, true);
            assertEquals(h, two);
            assertEquals(columns(one), columns(two));
        }
    }

    @Test
    void aDamagedFileGivesTheSameErrorAtTheSamePlace() throws Exception {
        History h = SyntheticHistory.stale(4_000, 4, 3).generate();
        Path f = dir.resolve("h.txh");
        CompactHistory.write(h, f);
        byte[] all = Files.readAllBytes(f);
        SplittableRandom rnd = new SplittableRandom(7);
        List<String> errors = new ArrayList<>();
        for (int k = 0; k < 200; k++) {
            byte[] bad;
            if (k % 10 == 9) {
                bad = Arrays.copyOf(all, CompactHistory.MAGIC.length + rnd.nextInt(all.length - CompactHistory.MAGIC.length)); // cut short
            } else {
                bad = all.clone();
                int at = CompactHistory.MAGIC.length + rnd.nextInt(all.length - CompactHistory.MAGIC.length);
                switch (k % 3) {
                    case 0 -> bad[at] = (byte) rnd.nextInt(256);
                    case 1 -> bad[at] = (byte) (bad[at] + 1 + rnd.nextInt(3)); // a count or reference a little off
                    default -> bad[at] = (byte) 0xff;
                }
            }
            Files.write(f, bad);
            String one = read(f, false);
            assertEquals(one, read(f, true), "damage " + k);
            if (one.startsWith("error: ")) {
                errors.add(one);
            }
        }
        // both sides' checks were met, in both halves of the file
        assertTrue(errors.stream().anyMatch(e -> e.contains("a wList of")), "the reading side's check of a list against its row");
        assertTrue(errors.stream().anyMatch(e -> e.contains("a reference to string")), "the decoder's check of a reference");
        assertTrue(errors.stream().anyMatch(e -> e.contains("is cut short")), "the decoder's end of file");
        assertTrue(errors.stream().anyMatch(e -> e.contains("): ") && !e.contains("corrupt at")), "a transaction's own check");
        assertTrue(errors.stream().anyMatch(e -> e.matches("(?s).*in transaction ([1-9]|[1-9]\\d{1,2}|1\\d{3}):.*")), "early in the file");
        assertTrue(errors.stream().anyMatch(e -> e.matches("(?s).*in transaction (3\\d{3}):.*")), "late in the file");
    }
}
