package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.history.History.row;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class HistoryJsonTest {
    static History sample() {
        return History.builder().meta("dbms", "h2").meta("level", "REPEATABLE_READ")
                .txn(1).session(1).sql("BEGIN").sql("SELECT * FROM t WHERE c1 < 5").predicateRead("t", "c1 < 5", false, row("r1", 0), row("r2", 0, 3))
                .sql("UPDATE t SET c1 = 1 WHERE c1 = 0").update("r1", 0).sql("COMMIT").commit()
                .txn(2).session(2).sql("DELETE FROM t WHERE c1 = 9").delete("r2", 0, 3).abort()
                .txn(3).session(1).lockingRead("r2", 0).update("r2", 0).insert("t2", "r9").unknown()
                .build();
    }

    @Test
    void roundTripsThroughText() throws Exception {
        History h = sample();
        String text = HistoryJson.write(h);
        assertEquals(4, text.lines().count(), "a header and one line per transaction");
        assertEquals(h, HistoryJson.read(text, "mem"));
    }

    @Test
    void theHeaderKeepsTheMetaInTheOrderGiven() {
        // Map.copyOf's order changes from one JVM to the next: two runs of one case wrote their files' headers differently
        java.util.Map<String, String> meta = new java.util.LinkedHashMap<>();
        for (String key : new String[] {"dbms", "level", "seed", "iteration", "a"}) {
            meta.put(key, key.toUpperCase(java.util.Locale.ROOT));
        }
        assertEquals("{\"format\":\"txfuzz-history\",\"version\":1,\"meta\":{\"dbms\":\"DBMS\",\"level\":\"LEVEL\",\"seed\":\"SEED\","
                + "\"iteration\":\"ITERATION\",\"a\":\"A\"}}", HistoryJson.header(new History(meta, java.util.List.of()).meta()));
    }

    @Test
    void roundTripsThroughAFile(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("h.jsonl");
        HistoryJson.write(sample(), f);
        assertEquals(sample(), HistoryJson.read(f));
    }

    @Test
    void aRowIdReadManyTimesIsOneStringInMemory() throws Exception {
        // r2 appears in T1's predicate read, T2's delete and T3's read and update: four copies in the text
        History back = HistoryJson.read(HistoryJson.write(sample()), "mem");
        java.util.List<String> rowIds = new java.util.ArrayList<>();
        java.util.List<String> tables = new java.util.ArrayList<>();
        for (Transaction t : back.transactions()) {
            for (Op op : t.ops()) {
                tables.add(op.table());
                if (op instanceof Read r && r.row().equals("r2")) {
                    rowIds.add(r.row());
                } else if (op instanceof Write w && w.row().equals("r2")) {
                    rowIds.add(w.row());
                }
            }
        }
        assertTrue(rowIds.size() >= 3, "r2 is read or written by several operations: " + rowIds.size());
        assertTrue(rowIds.stream().allMatch(r -> r == rowIds.get(0)), "one shared copy of r2, not one per operation");
        assertTrue(tables.stream().filter("t"::equals).allMatch(x -> x == tables.get(0)), "one shared copy of the table name");
    }

    @Test
    void theHeaderIsOptionalAndBlankLinesAreSkipped() throws Exception {
        String text = "\n{\"id\":1,\"session\":0,\"seq\":0,\"outcome\":\"committed\",\"ops\":[{\"op\":\"read\",\"stmt\":0,\"table\":\"t\",\"row\":\"r1\",\"wlist\":[0]}]}\n\n";
        History h = HistoryJson.read(text, "x.jsonl");
        assertEquals(1, h.size());
        assertEquals(WList.of(0), ((Read) h.transactions().get(0).ops().get(0)).wList());
    }

    @Test
    void rowIdsMayBeNumbers() throws Exception {
        String text = "{\"id\":1,\"session\":0,\"seq\":0,\"outcome\":\"committed\",\"ops\":[{\"op\":\"read\",\"stmt\":0,\"table\":\"t\",\"row\":7,\"wlist\":[0]}]}";
        assertEquals("7", ((Read) HistoryJson.read(text, "x").transactions().get(0).ops().get(0)).row());
    }

    private static String error(String text) {
        return assertThrows(HistoryFormatException.class, () -> HistoryJson.read(text, "x.jsonl")).getMessage();
    }

    private static final String HEADER = "{\"format\":\"txfuzz-history\",\"version\":1}\n";
    private static final String T1 = "{\"id\":1,\"session\":0,\"seq\":0,\"outcome\":\"committed\",\"ops\":[]}\n";

    @Test
    void brokenJsonSaysFileLineAndColumn() {
        String m = error(HEADER + "{\"id\":1,\"session\":0,");
        assertTrue(m.startsWith("x.jsonl:2:"), m);
    }

    @Test
    void aWriteMustEndWithItsWriter() {
        String m = error(HEADER + T1 + "{\"id\":2,\"session\":0,\"seq\":1,\"outcome\":\"committed\",\"ops\":[{\"op\":\"write\",\"stmt\":0,\"table\":\"t\","
                + "\"row\":\"r1\",\"kind\":\"update\",\"wlist\":[0,5]}]}\n");
        assertTrue(m.startsWith("x.jsonl:3: T2: a write's wlist must end with its writer T2"), m);
    }

    @Test
    void duplicateIdsAndSessionPositionsNameTheEarlierLine() {
        assertEquals("x.jsonl:3: T1 already appeared on line 2", error(HEADER + T1 + T1));
        String m = error(HEADER + T1 + T1.replace("\"id\":1", "\"id\":2"));
        assertEquals("x.jsonl:3: session 0 seq 0 already taken on line 2", m);
    }

    @Test
    void badValuesAreNamed() {
        assertTrue(error(T1.replace("committed", "done")).contains("outcome must be committed, aborted or unknown"), error(T1.replace("committed", "done")));
        assertTrue(error(T1.replace("\"outcome\":\"committed\",", "")).contains("outcome is missing"));
        assertTrue(error(T1.replace("\"id\":1", "\"id\":0")).contains("transaction ids are >= 1"));
        String unknownOp = T1.replace("\"ops\":[]", "\"ops\":[{\"op\":\"frob\",\"stmt\":0,\"table\":\"t\"}]");
        assertTrue(error(unknownOp).contains("frob"), error(unknownOp));
        String emptyWList = T1.replace("\"ops\":[]", "\"ops\":[{\"op\":\"read\",\"stmt\":0,\"table\":\"t\",\"row\":\"r\",\"wlist\":[]}]");
        assertTrue(error(emptyWList).contains("at least one writer"), error(emptyWList));
        String insert = T1.replace("\"ops\":[]", "\"ops\":[{\"op\":\"write\",\"stmt\":0,\"table\":\"t\",\"row\":\"r\",\"kind\":\"insert\",\"wlist\":[0,1]}]");
        assertTrue(error(insert).contains("an insert creates a row with a one-entry wlist"), error(insert));
        assertTrue(error(T1.replace("\"ops\"", "\"colour\":1,\"ops\"")).contains("colour"));
    }

    @Test
    void aHeaderOfAnotherVersionIsRefused() {
        String m = error(HEADER.replace("\"version\":1", "\"version\":2") + T1);
        assertEquals("x.jsonl:1: history format version 2 is not supported (this txfuzz reads 1)", m);
    }

    @Test
    void aMissingFileIsNamed() {
        HistoryFormatException e = assertThrows(HistoryFormatException.class, () -> HistoryJson.read(Path.of("/nonexistent/h.jsonl")));
        assertEquals("/nonexistent/h.jsonl: no such file", e.getMessage());
    }

    @Test
    void wListTextFromTheInstrumentedColumnParses() {
        assertEquals(WList.of(0, 3, 7), WList.parse("T0,T3,T7"));
        assertEquals(WList.of(0, 3, 7), WList.parse(" 0, 3 7 "));
        assertThrows(IllegalArgumentException.class, () -> WList.parse("T0,Tx"));
    }

    @Test
    void theDocumentedExampleParses() throws Exception {
        Path doc = Path.of("docs/history-format.md");
        String md = Files.readString(doc);
        int start = md.indexOf("```jsonl\n") + "```jsonl\n".length();
        String example = md.substring(start, md.indexOf("```", start));
        History h = HistoryJson.read(example, "docs/history-format.md");
        assertTrue(h.size() >= 3);
        assertTrue(IsolationChecker.observed(h).contains(Anomaly.LOST_UPDATE), IsolationChecker.analyze(h).findings().toString());
    }
}
