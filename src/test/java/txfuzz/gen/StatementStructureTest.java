package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class StatementStructureTest {
    /** The library's own reading (a thread per statement), or null where it reads nothing. */
    private static String library(String sql) {
        try {
            Statement st = CCJSqlParserUtil.parse(sql);
            return st == null ? null : st.toString();
        } catch (Exception e) {
            return null;
        }
    }

    @Test
    void parsingInTheCallingThreadReadsEveryStatementAsTheLibraryDoes() {
        List<String> differ = new ArrayList<>();
        int read = 0;
        int sampled = 0;
        for (String sql : SampleStatements.sql(20)) {
            sampled++;
            Statement ours = StatementStructure.parse(sql);
            String expected = library(sql);
            String actual = ours == null ? null : ours.toString();
            if (expected != null) {
                read++;
            }
            if (!java.util.Objects.equals(expected, actual)) {
                differ.add(sql + "\n  library: " + expected + "\n  ours:    " + actual);
            }
        }
        assertEquals(List.of(), differ);
        assertTrue(read > sampled / 2, "most sample statements are read: " + read + " of " + sampled);
    }

    @Test
    void aStatementNeitherModeReadsIsNull() {
        assertNull(StatementStructure.parse("MERGE INTO t KEY (id) VALUES (1, 2)"));
    }

    @Test
    void aCompoundQueryTheSimpleModeMayNotReadIsReadByTheComplexMode() {
        String sql = "SELECT id FROM t WHERE id IN (SELECT id FROM (SELECT id FROM u WHERE CASE WHEN a > 1 THEN b ELSE c END = 2) x)";
        assertEquals(library(sql), StatementStructure.parse(sql).toString());
    }

    @Test
    void theHeadReadsWhatTheParsedFormSaysOnEverySampleStatementItAnswers() {
        List<String> differ = new ArrayList<>();
        int answered = 0;
        int sampled = 0;
        for (String sql : SampleStatements.sql(20)) {
            sampled++;
            var head = StatementStructure.head(sql);
            if (head.isEmpty()) {
                continue;
            }
            answered++;
            var parsed = StatementStructure.of(sql);
            if (parsed.isEmpty()) {
                continue; // the parser does not read it: the head is the only structural reading
            }
            if (!head.get().kind().equals(parsed.get().kind()) || !head.get().writtenTable().equals(parsed.get().writtenTable())) {
                differ.add(sql + "\n  head:   " + head.get() + "\n  parsed: " + parsed.get().kind() + " " + parsed.get().writtenTable());
            }
        }
        assertEquals(List.of(), differ);
        assertTrue(answered > sampled / 2, "the head answers most sample statements: " + answered + " of " + sampled);
    }

    @Test
    void theHeadAnswersTheCommonFormsAndLeavesTheRestToTheParser() {
        assertEquals(new StatementStructure.Head("UPDATE", java.util.Optional.of("t1")),
                StatementStructure.head("UPDATE \"T1\" x SET c = 'FOR UPDATE' WHERE id = 1").orElseThrow());
        assertEquals(new StatementStructure.Head("DELETE", java.util.Optional.of("t2")), StatementStructure.head("DELETE FROM s.t2").orElseThrow());
        assertEquals(new StatementStructure.Head("INSERT", java.util.Optional.of("t0")),
                StatementStructure.head("INSERT INTO t0 (a, b) VALUES (1, 'it''s -- ON')").orElseThrow());
        assertEquals(new StatementStructure.Head("SELECT", java.util.Optional.empty()),
                StatementStructure.head("SELECT a FROM t /* FOR UPDATE */ WHERE b = 'LOCK'").orElseThrow());
        assertEquals(new StatementStructure.Head("SELECT FOR UPDATE", java.util.Optional.empty()),
                StatementStructure.head("SELECT a FROM t WHERE b IN (SELECT c FROM u) FOR UPDATE SKIP LOCKED").orElseThrow());
        assertEquals(new StatementStructure.Head("INSERT SELECT", java.util.Optional.of("t")),
                StatementStructure.head("INSERT INTO t (a) SELECT b FROM u WHERE c IN (SELECT d FROM v)").orElseThrow());
        assertEquals(new StatementStructure.Head("SELECT FOR SHARE", java.util.Optional.empty()), StatementStructure.head("SELECT a FROM t FOR SHARE").orElseThrow());
        assertEquals(new StatementStructure.Head("MERGE KEY", java.util.Optional.of("t")), StatementStructure.head("MERGE INTO t KEY (id) VALUES (1)").orElseThrow());
        assertEquals(new StatementStructure.Head("MERGE", java.util.Optional.of("t")),
                StatementStructure.head("MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = 1").orElseThrow());
        for (String other : List.of("SELECT a FROM t FOR UPDATE OF t", "SELECT a FROM t WHERE b IN (SELECT c FROM u FOR UPDATE)",
                "SELECT a FROM t UNION SELECT b FROM u FOR UPDATE", "SELECT a FROM t FOR NO KEY UPDATE", "MERGE INTO t KEY (id) SELECT * FROM u", "SELECT a FROM t LOCK IN SHARE MODE", "UPDATE ONLY t SET a = 1",
                "UPDATE t1, t2 SET a = 1", "DELETE FROM ONLY t", "INSERT INTO t VALUES ((SELECT 1))", "INSERT INTO t SELECT * FROM u JOIN v ON u.a = v.a", "INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING",
                "INSERT OR REPLACE INTO t VALUES (1)", "INSERT INTO t DEFAULT VALUES",
                "UPDATE t SET a = 'x\\' WHERE b = 1", "INSERT INTO t VALUES ('unterminated)")) {
            assertEquals(java.util.Optional.empty(), StatementStructure.head(other), other);
        }
    }

    @Test
    void theDeclaredWordsAreWhatTheParsedFormSaysOnEverySampleStatementTheyAnswer() {
        List<String> differ = new ArrayList<>();
        int answered = 0;
        for (String sql : SampleStatements.sql(20)) {
            var declared = StatementStructure.declared(sql);
            var parsed = StatementStructure.of(sql);
            if (declared.isEmpty() || parsed.isEmpty()) {
                continue;
            }
            answered++;
            if (!declared.get().equals(parsed.get().declares())) {
                differ.add(sql + "\n  words:  " + declared.get() + "\n  parsed: " + parsed.get().declares());
            }
        }
        assertEquals(List.of(), differ);
        assertTrue(answered > 100, "CREATE statements answered: " + answered);
    }

    @Test
    void theDeclaredWordsSkipStringsAndLeaveTablesFromQueriesToTheParser() {
        assertEquals(List.of("CHECK", "PRIMARY KEY"),
                StatementStructure.declared("CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(9) CHECK (c <> 'UNIQUE REFERENCES'))").orElseThrow());
        assertEquals(List.of("UNIQUE", "index"), StatementStructure.declared("CREATE UNIQUE INDEX i ON t (c)").orElseThrow());
        assertEquals(java.util.Optional.empty(), StatementStructure.declared("CREATE TABLE t AS SELECT * FROM u"));
        assertEquals(java.util.Optional.empty(), StatementStructure.declared("INSERT INTO t VALUES (1)"));
    }
}
