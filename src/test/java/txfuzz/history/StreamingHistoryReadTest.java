package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The token-stream reader and writer against data binding: same text, same history, same verdict. */
@Tag("unit")
class StreamingHistoryReadTest {
    /** Stale snapshots plant lost updates, read skews, write skews …; predicate reads, deletes and aborts are in it too. */
    private static History planted() {
        return SyntheticHistory.stale(3_000, 4, 11).generate();
    }

    private static History handWritten() {
        return History.builder().meta("dbms", "h2")
                .txn(1).session(1).sql("BEGIN").sql("SELECT * FROM t WHERE c1 > 0").read("r1", 0).read("t2", "r\"quoted\"", 0)
                .lockingRead("r2", 0).update("r2", 0).commit()
                .txn(2).session(2).sql("DELETE FROM t WHERE c1 = 9").delete("r2", 0, 1).abort()
                .txn(3).session(1).insert("t2", "r9").unknown()
                .build();
    }

    @Test
    void theStreamingWriterWritesWhatDataBindingWrites(@TempDir Path dir) throws Exception {
        for (History h : new History[] {planted(), handWritten()}) {
            Path f = dir.resolve("h.jsonl");
            HistoryJson.write(h, f);
            List<String> expected = HistoryJson.write(h).lines().toList();
            List<String> written = Files.readAllLines(f);
            for (int i = 0; i < Math.max(expected.size(), written.size()); i++) {
                String want = i < expected.size() ? expected.get(i) : null;
                String got = i < written.size() ? written.get(i) : null;
                assertEquals(want, got, "line " + (i + 1));
            }
        }
    }

    @Test
    void theStreamingReaderReadsWhatDataBindingReads() throws Exception {
        for (History h : new History[] {planted(), handWritten()}) {
            String text = HistoryJson.write(h);
            assertEquals(HistoryJson.readByDataBinding(text, "mem"), HistoryJson.read(text, "mem"));
            assertEquals(h, HistoryJson.read(text, "mem"));
        }
    }

    @Test
    void theVerdictIsTheSameEitherWay() throws Exception {
        String text = HistoryJson.write(planted());
        Analysis streamed = IsolationChecker.analyze(HistoryJson.read(text, "mem"));
        Analysis bound = IsolationChecker.analyze(HistoryJson.readByDataBinding(text, "mem"));
        assertEquals(bound.observed(), streamed.observed());
        assertEquals(bound.findings().stream().map(AnomalyFinding::summary).toList(), streamed.findings().stream().map(AnomalyFinding::summary).toList());
        for (Anomaly a : Anomaly.values()) {
            assertEquals(bound.count(a), streamed.count(a), a.name());
        }
    }

    @Test
    void aLineOutsideTheWrittenShapeIsStillReadByDataBinding() throws Exception {
        // "locking": null and a string stmt are not what txfuzz writes; data binding accepts both
        String line = "{\"id\":1,\"session\":0,\"seq\":0,\"outcome\":\"committed\",\"ops\":[{\"op\":\"read\",\"stmt\":\"0\",\"table\":\"t\","
                + "\"row\":\"r1\",\"wlist\":[0],\"locking\":null}]}";
        assertEquals(HistoryJson.readByDataBinding(line, "x"), HistoryJson.read(line, "x"));
    }

    @Test
    void aRowsVersionsShareOneArrayAndAnIncompatibleOneKeepsItsOwn() throws Exception {
        History h = SharedVersions.history();
        String text = HistoryJson.write(h);
        History back = HistoryJson.read(text, "mem");
        assertEquals(h, back);
        SharedVersions.assertShared(back);
        Analysis streamed = IsolationChecker.analyze(back);
        assertEquals(IsolationChecker.analyze(HistoryJson.readByDataBinding(text, "mem")).observed(), streamed.observed());
        assertTrue(streamed.observed().contains(Anomaly.INCOMPATIBLE_ORDER), streamed.observed().toString());
    }
}
