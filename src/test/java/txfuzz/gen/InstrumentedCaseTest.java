package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;

/** The shape of instrumented cases, without an engine (the engines run them in InstrumentedSqlValidityTest and the isolation tests). */
@Tag("unit")
class InstrumentedCaseTest {
    /** The companion read of a row-local subquery or an INSERT … SELECT's source (a post-read has the role POST_READ). */
    private static final java.util.regex.Pattern SUBQUERY_READ = java.util.regex.Pattern.compile("SELECT rid, wl FROM \\w+( WHERE .*)?");
    private static final GenConfig TRACKED = GenConfig.defaults().withInstrumentation(true);

    private static Dialect all(Dialect.Concat concat) {
        EnumSet<Feature> f = EnumSet.allOf(Feature.class);
        return new Dialect("all", f, "DOUBLE PRECISION", "VARCHAR(10)", concat);
    }

    @Test
    void theFiveArgumentConfigIsPlainAndTheFlagRoundTrips() {
        assertFalse(new GenConfig(3, 5, 5, 5, 5).instrumented());
        assertTrue(GenConfig.defaults().withInstrumentation(true).instrumented());
        assertEquals(GenConfig.defaults(), GenConfig.defaults().withInstrumentation(true).withInstrumentation(false));
    }

    @Test
    void sameDataStatementsAsThePlainCaseEachWithItsTrackingAndCompanions() {
        Dialect d = all(Dialect.Concat.PIPES);
        int subqueryReads = 0;
        int scans = 0;
        for (int i = 0; i < 300; i++) {
            TestCase plain = new CaseGenerator(GenConfig.defaults()).generate("all", d, IsolationLevel.SERIALIZABLE, "default", 3, i);
            TestCase tracked = new CaseGenerator(TRACKED).generate("all", d, IsolationLevel.SERIALIZABLE, "default", 3, i);
            assertEquals(plain.tables(), tracked.tables());
            assertEquals(plain.transactions().size(), tracked.transactions().size());
            for (String sql : tracked.setup()) {
                if (sql.startsWith("CREATE TABLE")) {
                    assertTrue(sql.contains(", rid VARCHAR(1000), wl VARCHAR(1000)"), sql);
                }
                if (sql.startsWith("INSERT")) {
                    assertTrue(sql.endsWith(", ',0')"), sql);
                }
            }
            for (Txn t : tracked.transactions()) {
                Txn p = plain.txn(t.id());
                assertTrue(t.explicit(), "every instrumented transaction is explicit");
                assertEquals(p.explicit() ? p.endsWithRollback() : false, t.endsWithRollback());
                List<StmtKind> kinds = new ArrayList<>();
                for (int s = 0; s < t.statements().size(); s++) {
                    Stmt st = t.statements().get(s);
                    Tracking tr = st.tracking();
                    if (st.kind().isControl()) {
                        assertNull(tr);
                        continue;
                    }
                    assertNotNull(tr, st.sql());
                    if (tr.role() == Tracking.Role.COMPANION_READ) {
                        assertTrue(SUBQUERY_READ.matcher(st.sql()).matches(), st.sql());
                        // a row-local subquery's companion read, after its statement's group
                        assertNotNull(tr.predicate(), st.sql());
                        assertFalse(tr.locking(), st.sql());
                        subqueryReads++;
                        continue;
                    }
                    switch (tr.role()) {
                        case READ -> kinds.add(StmtKind.SELECT);
                        case WRITE -> {
                            kinds.add(st.kind());
                            if (tr.predicate() != null) {
                                // the row-local WHERE an UPDATE, or a DELETE … RETURNING, scans through
                                assertTrue(st.kind() == StmtKind.UPDATE || st.kind() == StmtKind.DELETE && st.sql().contains(" RETURNING "),
                                        st.sql());
                                assertFalse(tr.predicate().contains("SELECT"), tr.predicate());
                                scans++;
                            }
                            assertEquals(t.id() + "." + s, tr.tag(), "a write's tag is its own position: " + st.sql());
                            assertTrue(tr.deletes() || st.sql().contains("," + tr.tag() + "'"), st.sql());
                        }
                        case TAG -> {
                            scans += tr.predicate() != null ? 1 : 0;
                            Stmt post = t.statements().get(s + 1);
                            assertEquals(Tracking.Role.POST_READ, post.tracking().role());
                            Tracking w = t.statements().get(s + 2).tracking();
                            assertEquals(Tracking.Role.WRITE, w.role());
                            assertTrue(w.deletes());
                            assertEquals(tr.tag(), w.tag());
                        }
                        case POST_READ -> assertTrue(st.sql().endsWith("LIKE '%," + tr.tag() + "'"), st.sql());
                        case COMPANION_READ -> throw new AssertionError("handled above");
                    }
                }
                // the DELETE's write is "DELETE ... WHERE wl LIKE": a DELETE still
                assertEquals(p.body().stream().map(Stmt::kind).toList(), kinds, "T" + t.id() + " of case " + i);
            }
        }
        assertTrue(subqueryReads > 20 && scans > 50, subqueryReads + " subquery reads, " + scans + " write scans");
    }

    @Test
    void readsLeadWithTheirTablesPairsAndSingleTableRowLocalReadsArePredicateReads() {
        Dialect d = all(Dialect.Concat.PIPES);
        int preds = 0;
        int joins = 0;
        int unions = 0;
        for (int i = 0; i < 300; i++) {
            TestCase c = new CaseGenerator(TRACKED).generate("all", d, IsolationLevel.SERIALIZABLE, "default", 11, i);
            for (Txn t : c.transactions()) {
                for (Stmt s : t.statements()) {
                    Tracking tr = s.tracking();
                    if (tr == null || !tr.role().reads()) {
                        continue;
                    }
                    if (tr.role() == Tracking.Role.COMPANION_READ) {
                        assertEquals(1, tr.tables().size(), s.sql());
                        continue;
                    }
                    if (tr.tables().equals(List.of(Tracking.TABLE_COLUMN))) {
                        unions++;
                        assertTrue(s.sql().contains(" UNION ALL SELECT '"), s.sql());
                        continue;
                    }
                    assertTrue(s.sql().startsWith("SELECT x0.rid, x0.wl") || s.sql().startsWith("SELECT DISTINCT x0.rid, x0.wl"), s.sql());
                    if (tr.tables().size() == 2) {
                        joins++;
                        assertTrue(s.sql().contains("x0.rid, x0.wl, x1.rid, x1.wl"), s.sql());
                    }
                    if (tr.predicate() != null) {
                        preds++;
                        assertEquals(1, tr.tables().size());
                        assertFalse(tr.predicate().contains("SELECT") || tr.predicate().contains("x0."), tr.predicate());
                    }
                    assertEquals(s.sql().contains(" FOR ") || s.sql().contains(" LOCK IN SHARE MODE"), tr.locking(), s.sql());
                }
            }
        }
        assertTrue(preds > 50 && joins > 20 && unions > 5, preds + " " + joins + " " + unions);
    }

    @Test
    void mariadbConcatenatesWithConcat() {
        Dialect d = all(Dialect.Concat.FUNCTION);
        boolean seen = false;
        for (int i = 0; i < 50; i++) {
            TestCase c = new CaseGenerator(TRACKED).generate("all", d, IsolationLevel.SERIALIZABLE, "default", 5, i);
            for (Txn t : c.transactions()) {
                for (Stmt s : t.statements()) {
                    assertFalse(s.sql().contains("||"), s.sql());
                    seen |= s.sql().contains("CONCAT(wl, ',");
                }
            }
        }
        assertTrue(seen);
        assertEquals(Dialect.Concat.FUNCTION, all(Dialect.Concat.PIPES).intersect(all(Dialect.Concat.FUNCTION)).concat());
        assertEquals("a || b", all(null).concat("a", "b"));
    }

    @Test
    void trackingRoundTripsThroughTheCaseFileAndOldFilesStillLoad() throws Exception {
        for (int i = 0; i < 40; i++) {
            TestCase c = new CaseGenerator(TRACKED).generate("all", all(Dialect.Concat.PIPES), IsolationLevel.SERIALIZABLE, "default", 9, i);
            assertEquals(c, CaseJson.read(CaseJson.write(c), "mem"));
        }
        TestCase plain = new CaseGenerator(GenConfig.defaults()).generate("all", all(Dialect.Concat.PIPES), IsolationLevel.SERIALIZABLE, "default", 9, 1);
        String json = CaseJson.write(plain);
        assertFalse(json.contains("tracking"), "plain cases write no tracking field");
        assertEquals(plain, CaseJson.read(json, "old.json"));
    }

    /** Only a WHERE over the subquery's own row gets a companion read: an outer column or a nested subquery makes it unknown. */
    @Test
    void aSubqueryIsRowLocalOnlyWithoutOuterColumnsAndNestedSubqueries() {
        ExprGenerator.Ref inner = new ExprGenerator.Ref("s0", null);
        assertTrue(Instrumentation.rowLocal("", inner));
        assertTrue(Instrumentation.rowLocal(" WHERE (s0.c1 > 3 AND s0.c2 LIKE 't0.%')", inner));
        assertFalse(Instrumentation.rowLocal(" WHERE s0.c1 = t0.c1", inner), "correlated");
        assertFalse(Instrumentation.rowLocal(" WHERE s0.c1 IN (SELECT s1.c1 FROM t1 s1)", inner), "nested");
    }
}
