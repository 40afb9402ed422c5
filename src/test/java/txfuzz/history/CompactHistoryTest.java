package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The compact form against JSON lines: the same history back, the same anomalies with the same witnesses, and clear errors. */
@Tag("unit")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CompactHistoryTest {
    @TempDir
    Path dir;

    /** Stale snapshots plant lost updates, read skews, write skews …; predicate reads, deletes and aborts are in it too. */
    private static History planted() {
        return SyntheticHistory.stale(3_000, 4, 11).generate();
    }

    /** Every field the compact form must carry: meta, SQL, quoting, matched and locking reads, every outcome and write kind, predicates with and without text. */
    private static History handWritten() {
        return History.builder().meta("dbms", "h2").meta("level", "REPEATABLE_READ")
                .txn(1).session(1).sql("BEGIN").sql("SELECT * FROM t WHERE c1 > 0 -- é").read("r1", 0).read("t2", "r\"quoted\"", 0)
                .lockingRead("r2", 0).update("r2", 0).commit()
                .txn(2).session(2).sql("DELETE FROM t WHERE c1 = 9").delete("r2", 0, 1).abort()
                .txn(3).session(1).insert("t2", "r9").predicateRead("t2", "c1 > 0", true, History.row("r9", 3))
                .predicateRead("t", null, false).op(new Read(0, "t", "r1", WList.of(0), false, true)).unknown()
                .txn(40_000_000_000L).session(7).read("r2", 0, 3).commit() // a wList that contradicts the row's order, and a big id
                .build();
    }

    private Path compact(History h) throws Exception {
        Path f = dir.resolve("h.txh");
        CompactHistory.write(h, f);
        return f;
    }

    @Test
    void theCompactFormReadsBackTheSameHistory() throws Exception {
        for (History h : new History[] {planted(), handWritten()}) {
            Path f = compact(h);
            assertTrue(HistoryFiles.isCompact(f));
            History back = HistoryFiles.read(f);
            assertEquals(h, back);
            assertEquals(h.meta(), back.meta());
        }
    }

    @Test
    void itIsAFractionOfTheJson() throws Exception {
        History h = planted();
        Path json = dir.resolve("h.jsonl");
        HistoryJson.write(h, json);
        long compact = Files.size(compact(h));
        assertTrue(compact * 5 < Files.size(json), compact + " bytes compact, " + Files.size(json) + " as JSON lines");
    }

    @Test
    void theCompactAndTheJsonPathFindTheSameAnomaliesWithTheSameWitnesses() throws Exception {
        History h = planted();
        Path json = dir.resolve("h.jsonl");
        HistoryJson.write(h, json);
        Analysis fromJson = IsolationChecker.analyze(HistoryFiles.read(json));
        Analysis fromCompact = IsolationChecker.analyze(HistoryFiles.read(compact(h)));
        assertTrue(fromJson.observed().containsAll(List.of(Anomaly.NON_REPEATABLE_READ, Anomaly.READ_WRITE_SKEW, Anomaly.WRITE_SKEW)), fromJson.observed().toString());
        assertEquals(fromJson.observed(), fromCompact.observed());
        assertEquals(describe(fromJson), describe(fromCompact));
        assertEquals(fromJson.warnings(), fromCompact.warnings());
        for (Anomaly a : Anomaly.values()) {
            assertEquals(fromJson.count(a), fromCompact.count(a), a.name());
        }
    }

    private static List<String> describe(Analysis an) {
        List<String> out = new ArrayList<>();
        for (AnomalyFinding f : an.findings()) {
            out.add(f.anomaly() + "\n" + f.summary() + "\n" + f.cycle() + "\n" + f.explanation());
        }
        return out;
    }

    @Test
    void aRowsVersionsShareOneArrayAndAnIncompatibleOneKeepsItsOwn() throws Exception {
        History h = SharedVersions.history();
        History back = HistoryFiles.read(compact(h));
        assertEquals(h, back);
        SharedVersions.assertShared(back);
        assertTrue(IsolationChecker.analyze(back).observed().contains(Anomaly.INCOMPATIBLE_ORDER));
    }

    @Test
    void aCutFileSaysSo() throws Exception {
        Path f = compact(handWritten());
        byte[] all = Files.readAllBytes(f);
        for (int keep : new int[] {all.length - 1, all.length / 2, CompactHistory.MAGIC.length + 1}) {
            Files.write(f, Arrays.copyOf(all, keep));
            HistoryFormatException e = assertThrows(HistoryFormatException.class, () -> HistoryFiles.read(f));
            assertTrue(e.getMessage().startsWith(f + ": "), e.getMessage());
            assertTrue(e.getMessage().contains("cut short") || e.getMessage().contains("corrupt"), e.getMessage());
        }
    }

    @Test
    void corruptBytesAreNamedWithWhereTheyAre() throws Exception {
        Path f = compact(handWritten());
        byte[] all = Files.readAllBytes(f);
        byte[] bad = all.clone();
        bad[lastTag(all)] = 9; // the end record's tag
        Files.write(f, bad);
        HistoryFormatException e = assertThrows(HistoryFormatException.class, () -> HistoryFiles.read(f));
        assertTrue(e.getMessage().contains("corrupt at byte") && e.getMessage().contains("a record of unknown kind 9"), e.getMessage());
        Files.write(f, "txfuzz-history-compact 2\nrest".getBytes(StandardCharsets.US_ASCII));
        e = assertThrows(HistoryFormatException.class, () -> HistoryFiles.read(f));
        assertEquals(f + ": not a compact history of version 1: it begins \"txfuzz-history-compact 2\" (this txfuzz reads"
                + " \"txfuzz-history-compact 1\")", e.getMessage());
    }

    @Test
    void aTransactionTheModelRejectsIsNamedByItsNumber() throws Exception {
        History h = History.builder().txn(1).session(1).read("r1", 0).commit().txn(2).session(1).read("r1", 0).commit().build();
        Path f = compact(h);
        byte[] all = Files.readAllBytes(f);
        // the second transaction's session/seq: T2 at seq 1 of session 1; make it seq 0, the place T1 holds
        int t2 = indexOf(all, (byte) 2, lastTag(all) - 12);
        byte[] bad = all.clone();
        bad[t2 + 2] = 0;
        Files.write(f, bad);
        HistoryFormatException e = assertThrows(HistoryFormatException.class, () -> HistoryFiles.read(f));
        assertTrue(e.getMessage().startsWith(f + ": ") && e.getMessage().contains("already has a transaction at seq 0"), e.getMessage());
    }

    /** The end record is the last tag: its count of transactions is one byte for the small histories here. */
    private static int lastTag(byte[] all) {
        return all.length - 2;
    }

    private static int indexOf(byte[] a, byte b, int from) {
        for (int i = Math.max(0, from); i < a.length; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
