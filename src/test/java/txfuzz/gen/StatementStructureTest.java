package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import org.junit.jupiter.api.Test;

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
}
