package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;

class CaseGeneratorTest {
    /** Everything the generator knows, so every code path runs. */
    static Dialect full() {
        return new Dialect("all", EnumSet.allOf(Feature.class), "DOUBLE PRECISION", "VARCHAR(10)");
    }

    private final CaseGenerator gen = new CaseGenerator(GenConfig.defaults());

    private TestCase make(Dialect d, long seed, long iteration) {
        return gen.generate("h2", d, IsolationLevel.READ_COMMITTED, "default", seed, iteration);
    }

    @Test
    void sameArgumentsGiveTheSameCase() {
        for (long it = 0; it < 50; it++) {
            TestCase a = make(full(), 42, it);
            TestCase b = new CaseGenerator(GenConfig.defaults()).generate("h2", full(), IsolationLevel.READ_COMMITTED, "default", 42, it);
            assertEquals(a, b, "iteration " + it);
        }
    }

    @Test
    void differentIterationsOrSeedsGiveDifferentCases() {
        Set<TestCase> seen = new HashSet<>();
        for (long it = 0; it < 50; it++) {
            seen.add(make(full(), 7, it));
        }
        assertEquals(50, seen.size());
        assertNotEquals(make(full(), 1, 0), make(full(), 2, 0));
        assertNotEquals(make(full(), 1, 0), make(full(), 1, 1));
    }

    @Test
    void casesHaveTheRequiredShape() {
        GenConfig cfg = GenConfig.defaults();
        for (long it = 0; it < 500; it++) {
            TestCase tc = make(full(), 3, it);
            assertEquals(TestCase.FORMAT_VERSION, tc.formatVersion());
            assertEquals(ExecutionMode.PLAIN, tc.execution());
            assertEquals(IsolationLevel.READ_COMMITTED, tc.isolation());
            assertEquals("h2", tc.dbms());
            assertEquals(3, tc.seed());
            assertEquals(it, tc.iteration());
            assertTrue(tc.tables().size() >= 1 && tc.tables().size() <= cfg.maxTables());
            for (int i = 0; i < tc.tables().size(); i++) {
                assertEquals("t" + i, tc.tables().get(i));
            }
            long creates = tc.setup().stream().filter(s -> s.startsWith("CREATE TABLE")).count();
            assertEquals(tc.tables().size(), creates);
            for (String t : tc.tables()) {
                long inserts = tc.setup().stream().filter(s -> s.startsWith("INSERT INTO " + t + " ")).count();
                assertTrue(inserts <= cfg.maxRows(), t + " has " + inserts + " rows");
            }
            for (String s : tc.setup()) {
                if (s.startsWith("CREATE TABLE")) {
                    long cols = java.util.regex.Pattern.compile("\\bc\\d+ (INT|DOUBLE|VARCHAR)").matcher(s).results().count();
                    assertTrue(cols >= 1 && cols <= cfg.maxColumns(), s);
                }
            }
            List<Txn> txns = tc.transactions();
            assertTrue(txns.size() >= 1 && txns.size() <= cfg.maxTxns());
            assertTrue(txns.stream().anyMatch(Txn::explicit), "no explicit transaction in iteration " + it);
            assertTrue(txns.stream().anyMatch(Txn::writes), "no writer in iteration " + it);
            for (Txn t : txns) {
                assertTrue(t.body().size() >= 1 && t.body().size() <= cfg.maxStmtsPerTxn());
                for (Stmt s : t.body()) {
                    assertFalse(s.kind().isControl());
                    assertFalse(s.needsTransaction());
                    assertKindMatches(s);
                }
            }
            // the order names each transaction once per statement (TestCase checks it) and is deterministic
            assertEquals(tc.statementCount(), txns.stream().mapToInt(t -> t.statements().size()).sum());
        }
    }

    private static void assertKindMatches(Stmt s) {
        String sql = s.sql();
        switch (s.kind()) {
            case SELECT -> assertTrue(sql.startsWith("SELECT "), sql);
            case INSERT -> assertTrue(sql.startsWith("INSERT INTO ") && !sql.contains(" ON CONFLICT") && !sql.contains(" ON DUPLICATE"), sql);
            case UPDATE -> assertTrue(sql.startsWith("UPDATE "), sql);
            case DELETE -> assertTrue(sql.startsWith("DELETE FROM "), sql);
            case UPSERT -> assertTrue(sql.startsWith("MERGE INTO ") || sql.startsWith("REPLACE INTO ")
                    || sql.contains(" ON CONFLICT") || sql.contains(" ON DUPLICATE KEY UPDATE "), sql);
            default -> throw new AssertionError("unexpected kind " + s.kind() + ": " + sql);
        }
    }

    @Test
    void mostTransactionsCommitAndAllKindsAppear() {
        int commits = 0;
        int rollbacks = 0;
        EnumSet<StmtKind> kinds = EnumSet.noneOf(StmtKind.class);
        for (long it = 0; it < 300; it++) {
            for (Txn t : make(full(), 11, it).transactions()) {
                if (t.explicit()) {
                    if (t.endsWithRollback()) {
                        rollbacks++;
                    } else {
                        commits++;
                    }
                }
                t.body().forEach(s -> kinds.add(s.kind()));
            }
        }
        assertTrue(commits > 2 * rollbacks, commits + " commits, " + rollbacks + " rollbacks");
        assertTrue(rollbacks > 0);
        assertEquals(EnumSet.of(StmtKind.SELECT, StmtKind.INSERT, StmtKind.UPDATE, StmtKind.DELETE, StmtKind.UPSERT), kinds);
    }

    @Test
    void aRestrictedDialectIsRespected() {
        Dialect small = new Dialect("small", EnumSet.of(Feature.TYPE_INT, Feature.PRIMARY_KEY), "DOUBLE", "VARCHAR(5)");
        for (long it = 0; it < 300; it++) {
            TestCase tc = make(small, 5, it);
            for (String sql : allSql(tc)) {
                String u = sql.toUpperCase(Locale.ROOT);
                for (String banned : List.of("JOIN", "MERGE", "UNION", "GROUP BY", "ORDER BY", "EXISTS", "COUNT(", "MAX(", "MIN(", "SUM(",
                        "CASE", "BETWEEN", "LIKE", "COALESCE", "FOR UPDATE", "FOR SHARE", "LOCK IN", "ON CONFLICT", "REPLACE",
                        "ON DUPLICATE", "DOUBLE", "VARCHAR", "UNIQUE", "CHECK", "DEFAULT", "FOREIGN", "REFERENCES", "INDEX",
                        "(SELECT")) {
                    assertFalse(u.contains(banned), banned + " in " + sql);
                }
                if (u.startsWith("CREATE")) {
                    assertFalse(u.contains("NOT NULL"), sql);
                }
                assertFalse(u.matches("INSERT INTO .* SELECT .*"), sql);
                assertFalse(multiRow(sql), "multi-row insert: " + sql);
            }
        }
    }

    @Test
    void noTypeFeaturesStillGivesIntTables() {
        Dialect none = new Dialect("none", EnumSet.noneOf(Feature.class), "DOUBLE", "VARCHAR(5)");
        for (long it = 0; it < 100; it++) {
            TestCase tc = make(none, 9, it);
            assertTrue(tc.setup().get(0).startsWith("CREATE TABLE t0 (c0 INT"));
            for (String sql : allSql(tc)) {
                assertFalse(sql.contains("JOIN") || sql.contains("PRIMARY KEY") || sql.contains("(SELECT"), sql);
            }
        }
    }

    @Test
    void noUpsertFeatureMeansNoUpserts() {
        EnumSet<Feature> f = EnumSet.allOf(Feature.class);
        f.removeAll(List.of(Feature.MERGE, Feature.INSERT_ON_CONFLICT, Feature.REPLACE, Feature.INSERT_ON_DUPLICATE_KEY));
        Dialect d = new Dialect("noupsert", f, "DOUBLE", "VARCHAR(5)");
        for (long it = 0; it < 200; it++) {
            for (Txn t : make(d, 13, it).transactions()) {
                for (Stmt s : t.body()) {
                    assertNotEquals(StmtKind.UPSERT, s.kind(), s.sql());
                }
            }
        }
    }

    @Test
    void writesWithoutSameTableSubqueriesNeverReadTheirTable() {
        EnumSet<Feature> f = EnumSet.allOf(Feature.class);
        f.remove(Feature.WRITE_SUBQUERY_SAME_TABLE);
        Dialect d = new Dialect("mariadb-like", f, "DOUBLE", "VARCHAR(5)");
        for (long it = 0; it < 300; it++) {
            for (Txn t : make(d, 17, it).transactions()) {
                for (Stmt s : t.body()) {
                    if (s.kind() == StmtKind.UPDATE || s.kind() == StmtKind.DELETE) {
                        String table = s.sql().split(" ")[s.kind() == StmtKind.UPDATE ? 1 : 2];
                        assertFalse(s.sql().contains("FROM " + table + " s"), s.sql());
                    }
                }
            }
        }
    }

    @Test
    void intersectedDialectsWork() {
        Dialect a = new Dialect("a", EnumSet.of(Feature.TYPE_INT, Feature.TYPE_VARCHAR, Feature.JOIN_INNER, Feature.MERGE, Feature.UNIQUE),
                "DOUBLE", "VARCHAR(10)");
        Dialect b = new Dialect("b", EnumSet.of(Feature.TYPE_INT, Feature.TYPE_VARCHAR, Feature.JOIN_LEFT, Feature.INSERT_ON_CONFLICT,
                Feature.UNIQUE), "REAL", "TEXT");
        Dialect both = a.intersect(b);
        for (long it = 0; it < 200; it++) {
            for (String sql : allSql(make(both, 19, it))) {
                assertFalse(sql.contains("JOIN") || sql.contains("MERGE") || sql.contains("ON CONFLICT") || sql.contains("VARCHAR")
                        || sql.contains("REAL") || sql.contains("TEXT"), sql);
            }
        }
    }

    @Test
    void everyPairOfRegisteredTargetsCanShareCases() {
        // each engine's description's dialect: the dialect of a target at its default version (no server is started for it)
        List<Dialect> dialects = txfuzz.dbms.Targets.names().stream().map(n -> txfuzz.dbms.Targets.engine(n).dialect()).toList();
        for (Dialect a : dialects) {
            for (Dialect b : dialects) {
                Dialect both = a.intersect(b);
                for (long it = 0; it < 30; it++) {
                    TestCase tc = make(both, 29, it);
                    assertTrue(tc.transactions().stream().anyMatch(Txn::writes));
                    if (!both.has(Feature.MERGE)) {
                        assertTrue(allSql(tc).stream().noneMatch(x -> x.startsWith("MERGE")), both.name());
                    }
                    if (!both.has(Feature.FOR_UPDATE)) {
                        assertTrue(allSql(tc).stream().noneMatch(x -> x.contains("FOR UPDATE")), both.name());
                    }
                }
            }
        }
    }

    @Test
    void smallConfigsAreRespected() {
        GenConfig tiny = new GenConfig(1, 1, 0, 1, 1);
        CaseGenerator g = new CaseGenerator(tiny);
        for (long it = 0; it < 100; it++) {
            TestCase tc = g.generate("h2", full(), IsolationLevel.SERIALIZABLE, "default", 23, it);
            assertEquals(List.of("t0"), tc.tables());
            assertEquals(1, tc.transactions().size());
            Txn t = tc.transactions().get(0);
            assertTrue(t.explicit());
            assertEquals(1, t.body().size());
            assertTrue(t.writes());
            assertTrue(tc.setup().stream().noneMatch(s -> s.startsWith("INSERT")));
        }
    }

    /** Whether the VALUES clause of {@code sql} has more than one row. */
    static boolean multiRow(String sql) {
        int i = sql.indexOf("VALUES (");
        if (i < 0) {
            return false;
        }
        int depth = 0;
        for (int k = i + 7; k < sql.length(); k++) {
            char ch = sql.charAt(k);
            if (ch == '(') {
                depth++;
            } else if (ch == ')' && --depth == 0) {
                return sql.startsWith(", (", k + 1);
            }
        }
        return false;
    }

    static List<String> allSql(TestCase tc) {
        List<String> out = new java.util.ArrayList<>(tc.setup());
        for (Txn t : tc.transactions()) {
            for (Stmt s : t.body()) {
                out.add(s.sql());
            }
        }
        return out;
    }
}
