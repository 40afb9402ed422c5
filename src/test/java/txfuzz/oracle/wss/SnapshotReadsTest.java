package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.model.IsolationLevel;

/**
 * {@link SnapshotReads} against what H2 does: for each statement form, T2 (REPEATABLE READ) runs it, T1 commits a row
 * into t1, and T2's next SELECT shows the row or not — not shown means the statement took t1's snapshot. Where
 * SnapshotReads answers, H2 must agree; where it cannot tell (the first statement naming the table then counts), the
 * statement names t1 and the answer is left to that fallback.
 */
class SnapshotReadsTest {
    private record Form(String sql, boolean takesT1) {
    }

    /** Each form with what H2 2.5.252 did (plain JDBC, the same probe as {@link #takesSnapshotOfT1}). */
    private static final List<Form> FORMS = List.of(
            new Form("SELECT * FROM t1 WHERE c0 = 99", true),
            new Form("SELECT 1 FROM t1 LIMIT 0", true),
            new Form("SELECT * FROM t1 WHERE c0 = 1 FOR UPDATE", true),
            new Form("SELECT * FROM t0 WHERE c0 IN (SELECT c0 FROM t1)", true),
            new Form("SELECT * FROM t0 RIGHT JOIN t1 ON t0.c0 = t1.c0", true),
            new Form("SELECT * FROM t0", false),
            new Form("INSERT INTO t1 VALUES (50, 1)", false),
            new Form("INSERT INTO t1 VALUES (1, 1)", false), // fails on the key
            new Form("INSERT INTO t1 SELECT c0 + 70, c1 FROM t0", false),
            new Form("INSERT INTO t0 SELECT c0 + 70, c1 FROM t1", true),
            new Form("INSERT INTO t1 VALUES ((SELECT MAX(c0) + 80 FROM t1), 1)", true),
            new Form("INSERT INTO t0 VALUES ((SELECT MAX(c0) + 80 FROM t1), 1)", true),
            new Form("UPDATE t1 SET c1 = 5", false),
            new Form("UPDATE t1 SET c1 = c1 + 1", true),
            new Form("UPDATE t1 SET c1 = 5 WHERE c0 = 99", true),
            new Form("UPDATE t0 SET c1 = (SELECT MAX(c1) FROM t1)", true),
            new Form("UPDATE t1 SET c0 = 1", false), // fails on the key
            new Form("DELETE FROM t1", false),
            new Form("DELETE FROM t1 WHERE (1 = 1)", false),
            new Form("UPDATE t1 SET c1 = 5 WHERE TRUE", false),
            new Form("DELETE FROM t1 WHERE c0 = 99", true),
            new Form("DELETE FROM t0 WHERE c0 IN (SELECT c0 + 10 FROM t1)", true),
            // a subquery whose columns are its own: the target is read only when a column of it is used (correlated)
            new Form("DELETE FROM t1 WHERE EXISTS (SELECT 1 FROM t0 s0 WHERE s0.c0 = 1)", false),
            new Form("DELETE FROM t1 WHERE EXISTS (SELECT 0 FROM t0 s0)", false),
            new Form("DELETE FROM t1 WHERE EXISTS (SELECT 1 FROM t0 s0 WHERE s0.c0 = t1.c0)", true),
            new Form("DELETE FROM t1 WHERE EXISTS (SELECT 1 FROM t0 s0 WHERE EXISTS (SELECT 1 FROM t0 s1 WHERE s1.c0 = s0.c0))", false),
            new Form("DELETE FROM t1 WHERE EXISTS (SELECT 1 FROM t0 s0 WHERE EXISTS (SELECT 1 FROM t0 s1 WHERE s1.c0 = t1.c0))", true),
            new Form("DELETE FROM t1 WHERE 1 IN (SELECT s0.c0 FROM t0 s0)", false),
            new Form("DELETE FROM t1 WHERE t1.c0 IN (SELECT s0.c0 FROM t0 s0)", true),
            new Form("DELETE FROM t1 WHERE EXISTS (SELECT 1 FROM t1 s0 WHERE s0.c0 = 1)", true),
            new Form("DELETE FROM t1 x WHERE EXISTS (SELECT 1 FROM t0 s0 WHERE s0.c0 = x.c0)", true),
            new Form("DELETE FROM t1 x WHERE EXISTS (SELECT 1 FROM t0 s0 WHERE s0.c0 = 5)", false),
            new Form("UPDATE t1 SET c1 = 5 WHERE NOT EXISTS (SELECT 1 FROM t0 s0 WHERE s0.c0 = 99)", false),
            new Form("UPDATE t1 SET c1 = (SELECT MAX(s0.c0) FROM t0 s0)", false),
            new Form("UPDATE t1 SET c1 = (SELECT MAX(s0.c0) FROM t0 s0 WHERE s0.c1 = t1.c1)", true),
            new Form("MERGE INTO t1 USING t0 ON (t1.c0 = t0.c0) WHEN MATCHED THEN UPDATE SET c1 = 7", true),
            new Form("MERGE INTO t1 USING t0 ON (1 = 0) WHEN NOT MATCHED THEN INSERT VALUES (t0.c0 + 50, 0)", true),
            new Form("MERGE INTO t0 USING t1 ON (t0.c0 = t1.c0) WHEN MATCHED THEN UPDATE SET c1 = 7", true),
            new Form("MERGE INTO t1 KEY (c0) VALUES (60, 9)", false));

    private static boolean takesSnapshotOfT1(Target h2, String sql) throws SQLException {
        try (Database db = h2.freshDatabase(); Connection t1 = db.connect(IsolationLevel.REPEATABLE_READ, "default");
             Connection t2 = db.connect(IsolationLevel.REPEATABLE_READ, "default"); Statement s1 = t1.createStatement();
             Statement s2 = t2.createStatement()) {
            for (String setup : List.of("CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 INT)", "CREATE TABLE t1 (c0 INT PRIMARY KEY, c1 INT)",
                    "INSERT INTO t0 VALUES (1, 1), (2, 2)", "INSERT INTO t1 VALUES (1, 1), (2, 2)")) {
                s1.execute(setup);
            }
            t2.setAutoCommit(false);
            try {
                s2.execute(sql);
            } catch (SQLException e) {
                // a failed statement: whether it took the snapshot is what is asked
            }
            s1.execute("INSERT INTO t1 VALUES (100, 0)");
            try (ResultSet rs = s2.executeQuery("SELECT COUNT(*) FROM t1 WHERE c0 = 100")) {
                rs.next();
                boolean taken = rs.getInt(1) == 0;
                t2.rollback();
                return taken;
            }
        }
    }

    @Test
    void whatH2DoesIsWhatTheParsedStatementSaysOrItCannotTell() throws Exception {
        int told = 0;
        try (Target h2 = Targets.create("h2")) {
            for (Form form : FORMS) {
                assertEquals(form.takesT1(), takesSnapshotOfT1(h2, form.sql()), "H2 changed: " + form.sql());
                Optional<Set<String>> reads = SnapshotReads.of(form.sql());
                if (reads.isPresent()) {
                    assertEquals(form.takesT1(), reads.get().contains("t1"), form.sql() + " reads " + reads.get());
                    told++;
                }
            }
        }
        assertTrue(told >= FORMS.size() - 1, "only H2's MERGE ... KEY is left to the names: " + told + " of " + FORMS.size());
    }

    @Test
    void whereAColumnsTableCannotBeToldFromItsQualifierItCountsAsAReadOfTheTarget() {
        // measured free on H2, but an unqualified column in a subquery, or a subquery naming the target's name again as
        // an alias, could be the target's as far as the statement alone tells
        for (String sql : List.of("UPDATE t1 SET c1 = (SELECT MAX(c0) FROM t0)",
                "DELETE FROM t1 WHERE EXISTS (SELECT 1 FROM t0 WHERE c0 = 99)",
                "DELETE FROM t1 WHERE EXISTS (SELECT 1 FROM t0 t1 WHERE t1.c0 = 99)")) {
            assertTrue(SnapshotReads.of(sql).orElseThrow().contains("t1"), sql);
        }
        assertEquals(Optional.empty(), SnapshotReads.of("BEGIN"));
        assertEquals(Optional.empty(), SnapshotReads.of("MERGE INTO t1 KEY (c0) VALUES (60, 9)"));
    }
}
