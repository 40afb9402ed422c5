package txfuzz.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.gen.SampleStatements;
import txfuzz.gen.StatementStructure;

@Tag("unit")
class TableWritesTest {
    @Test
    void eachWriteFormNamesItsTable() {
        assertEquals(Optional.of("t1"), TableWrites.target("INSERT INTO t1 (c0) VALUES (1)"));
        assertEquals(Optional.of("t1"), TableWrites.target("insert or replace into T1 values (1)"));
        assertEquals(Optional.of("t1"), TableWrites.target("REPLACE INTO `t1` VALUES (1)"));
        assertEquals(Optional.of("t1"), TableWrites.target("INSERT IGNORE INTO t1 VALUES (1)"));
        assertEquals(Optional.of("t1"), TableWrites.target("UPDATE \"T1\" SET c0 = 1 WHERE c1 IN (SELECT c0 FROM t2)"));
        assertEquals(Optional.of("t1"), TableWrites.target("DELETE FROM t1 WHERE c0 = 1 RETURNING rid"));
        assertEquals(Optional.of("t1"), TableWrites.target("MERGE INTO t1 USING t2 x ON (t1.c0 = x.c0) WHEN MATCHED THEN DELETE"));
        assertEquals(Optional.of("t1"), TableWrites.target("INSERT INTO t1 (c0) VALUES (1) ON CONFLICT (c0) DO UPDATE SET c1 = 2"));
        assertEquals(Optional.empty(), TableWrites.target("SELECT c0 FROM t1 FOR UPDATE"));
        assertEquals(Optional.empty(), TableWrites.target("CREATE TABLE t1 (c0 INT)"));
        // the parsed form reads past a schema, which the text reading took for the table
        assertEquals(Optional.of("t1"), TableWrites.target("UPDATE s.t1 SET c0 = 1"));
        assertEquals(Optional.of("t_7sdcgd"), TableWrites.target("INSERT INTO `t_7sdcgd` VALUES (1, 2)"));
        assertEquals(Optional.empty(), TableWrites.targetFromText("INSERT INTO `t_7sdcgd` VALUES (1, 2)"), "what the text reading missed");
    }

    @Test
    void whatTheParserDoesNotReadIsReadFromTheText() {
        String h2Merge = "MERGE INTO t1 KEY (c0) VALUES (1, 2)";
        assertTrue(StatementStructure.of(h2Merge).isEmpty());
        assertEquals(Optional.of("t1"), TableWrites.target(h2Merge));
        assertEquals(Optional.empty(), TableWrites.target("SELECT rid, wl FROM t0 LOCK IN SHARE MODE SKIP LOCKED"));
    }

    /**
     * The parsed reading names the table the text reading named, for every statement of generated and corpus
     * cases; except that the text reading missed a MariaDB table name in backquotes (the corpus's spelling),
     * which the parsed one reads: the comparison quotes it as the text reading expects.
     */
    @Test
    void theParsedTableIsTheTextTableForEveryStatementTxfuzzRuns() {
        int parsed = 0;
        List<String> differ = new ArrayList<>();
        for (String sql : SampleStatements.sql(40)) {
            Optional<StatementStructure.Parsed> p = StatementStructure.of(sql);
            if (p.isEmpty()) {
                continue;
            }
            parsed++;
            Optional<String> text = TableWrites.targetFromText(sql.replace('`', '"'));
            if (!p.get().writtenTable().equals(text)) {
                differ.add(text + " vs parsed " + p.get().writtenTable() + ": " + sql.substring(0, Math.min(sql.length(), 200)));
            }
        }
        assertEquals(List.of(), differ);
        assertTrue(parsed > 1000, "parsed " + parsed);
    }

    /** Reading the common forms from their words gives the table the parsed form gives, else the text, on every sample statement. */
    @Test
    void theWordsGiveTheTableOfTheParsedFormOrTheTextForEveryStatementTxfuzzRuns() {
        List<String> differ = new ArrayList<>();
        int byWords = 0;
        for (String sql : SampleStatements.sql(40)) {
            Optional<String> full = StatementStructure.of(sql).map(StatementStructure.Parsed::writtenTable).orElseGet(() -> TableWrites.targetFromText(sql));
            if (!full.equals(TableWrites.target(sql))) {
                differ.add(full + " vs " + TableWrites.target(sql) + ": " + sql.substring(0, Math.min(sql.length(), 200)));
            }
            byWords += StatementStructure.head(sql).isPresent() ? 1 : 0;
        }
        assertEquals(List.of(), differ);
        assertTrue(byWords > 1000, "read from their words: " + byWords);
    }
}
