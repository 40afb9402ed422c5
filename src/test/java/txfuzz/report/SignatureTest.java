package txfuzz.report;

import txfuzz.oracle.explicit.ExplicitOracle;
import txfuzz.oracle.wss.WssKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Cases;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

class SignatureTest {
    private static final Violation TX_WSS = new Violation(WssKind.TX_WSS, Classification.BUG_CANDIDATE, "s", "d", null);

    private static TestCase lostUpdate(int v) {
        return Cases.on("h2").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, " + v + ")")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 2 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2);
    }

    @Test
    void statementKindsAndFeaturesAreReadFromTheSql() {
        TestCase c = Cases.on("h2").table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT NOT NULL, c1 INT CHECK (c1 > 0), PRIMARY KEY (c0))",
                        "CREATE TABLE t1 (c0 INT, UNIQUE (c0), FOREIGN KEY (c0) REFERENCES t0 (c0))",
                        "CREATE INDEX i0 ON t0 (c1)", "INSERT INTO t0 VALUES (1, 1)")
                .txn("SELECT x0.c0 FROM t0 x0 LEFT JOIN t1 x1 ON x0.c0 = x1.c0 WHERE x0.c1 IN (SELECT MAX(c1) FROM t0) ORDER BY x0.c0",
                        "SELECT x.c0 FROM t0 x WHERE x.c1 > 0 FOR UPDATE")
                .txn("INSERT INTO t1 (c0) SELECT s.c0 FROM t0 s", "DELETE FROM t0 WHERE c1 BETWEEN 1 AND 3", "ROLLBACK")
                .autocommit("MERGE INTO t1 USING t0 x ON (t1.c0 = x.c0) WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (c0) VALUES (x.c0)")
                .order(1, 1, 1, 1, 2, 2, 2, 2, 3);
        Signature s = Signature.of(c, TX_WSS);
        assertEquals(List.of("DELETE", "INSERT SELECT", "MERGE", "ROLLBACK", "SELECT", "SELECT FOR UPDATE", "autocommit"), s.statements());
        assertEquals(List.of("BETWEEN", "CHECK", "FOREIGN KEY", "LEFT JOIN", "MERGE WHEN MATCHED DELETE", "MERGE WHEN NOT MATCHED INSERT",
                "ORDER BY", "PRIMARY KEY", "UNIQUE", "aggregate", "index", "subquery"), s.features());
        assertTrue(s.text().startsWith("wss/tx-wss bug-candidate h2 RC · "), s.text());
    }

    @Test
    void upsertFlavoursJoinsAndStringLiteralsAreTold() {
        assertEquals("INSERT ON CONFLICT DO UPDATE", kind("INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET b = excluded.b"));
        assertEquals("INSERT ON CONFLICT DO NOTHING", kind("insert into t (a) values (1) on conflict do nothing"));
        assertEquals("INSERT ON DUPLICATE KEY UPDATE", kind("INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE b = 2"));
        assertEquals("REPLACE", kind("REPLACE INTO t (a) VALUES (1)"));
        assertEquals("INSERT OR REPLACE", kind("INSERT OR REPLACE INTO t VALUES (1)"));
        assertEquals("INSERT", kind("INSERT INTO t (a, b) VALUES (1, 'SELECT')"));
        assertEquals("MERGE KEY", kind("MERGE INTO t KEY (a) VALUES (1, 2)"));
        assertEquals("SELECT FOR SHARE", kind("SELECT a FROM t FOR SHARE"));
        assertEquals("SELECT FOR SHARE", kind("SELECT a FROM t LOCK IN SHARE MODE"));
        assertEquals(java.util.Set.of("INNER JOIN", "FULL JOIN", "EXISTS"),
                Signature.queryFeatures(Signature.normalise("SELECT 1 FROM a JOIN b ON a.x = b.x FULL OUTER JOIN c ON c.x = a.x WHERE EXISTS (SELECT 1 FROM d)"))
                        .stream().filter(f -> !f.equals("subquery")).collect(java.util.stream.Collectors.toSet()));
        // a keyword inside a string is data
        assertTrue(Signature.queryFeatures(Signature.normalise("SELECT a FROM t WHERE b = 'x ORDER BY y'")).isEmpty());
    }

    private static String kind(String sql) {
        return Signature.statementKind(sql);
    }

    /**
     * The kind read from the parsed statement is the kind the text gave before (signature ids stay), for
     * every statement of generated cases of every engine and of every corpus case the parser reads; the
     * ones it does not read keep the text's kind.
     */
    @Test
    void theParsedKindIsTheTextKindForEveryStatementTxfuzzRuns() {
        int parsed = 0;
        int unparsed = 0;
        java.util.List<String> differ = new java.util.ArrayList<>();
        for (String sql : txfuzz.gen.SampleStatements.sql(40)) {
            String text = Signature.kindFromText(Signature.normalise(sql));
            java.util.Optional<txfuzz.gen.StatementStructure.Parsed> p = txfuzz.gen.StatementStructure.of(sql);
            if (p.isEmpty()) {
                unparsed++;
                assertEquals(text, kind(sql), sql);
                continue;
            }
            parsed++;
            if (!text.equals(p.get().kind())) {
                differ.add(text + " vs parsed " + p.get().kind() + ": " + sql);
            }
        }
        System.out.println("statement kinds: " + parsed + " parsed, " + unparsed + " read from the text");
        assertEquals(List.of(), differ);
        assertTrue(parsed > 1000, "parsed " + parsed);
    }

    /** The constraints and indexes read from the parsed setup are those the text gave, for every setup statement of those cases. */
    @Test
    void theParsedSchemaFeaturesAreTheTextFeatures() {
        int parsed = 0;
        java.util.List<String> differ = new java.util.ArrayList<>();
        for (txfuzz.model.TestCase c : txfuzz.gen.SampleStatements.cases(40)) {
            for (String sql : c.setup()) {
                if (txfuzz.gen.StatementStructure.of(sql).isEmpty()) {
                    continue;
                }
                parsed++;
                java.util.Set<String> text = Signature.schemaFeaturesFromText(Signature.normalise(sql));
                if (!text.equals(Signature.schemaFeatures(sql))) {
                    differ.add(text + " vs parsed " + Signature.schemaFeatures(sql) + ": " + sql.substring(0, Math.min(200, sql.length())));
                }
            }
        }
        assertEquals(List.of(), differ);
        assertTrue(parsed > 500, "parsed " + parsed);
    }

    @Test
    void whatTheParserDoesNotReadIsNamedFromTheText() {
        assertTrue(txfuzz.gen.StatementStructure.of("MERGE INTO t KEY (a) VALUES (1, 2)").isEmpty(), "H2's MERGE … KEY");
        assertEquals("MERGE KEY", kind("MERGE INTO t KEY (a) VALUES (1, 2)"));
        assertTrue(txfuzz.gen.StatementStructure.of("SELECT a FROM t FOR READ ONLY WITH RS").isEmpty(), "Derby's read-stability lock");
        assertEquals("SELECT FOR SHARE", kind("SELECT a FROM t FOR READ ONLY WITH RS"));
        assertEquals("SELECT FOR SHARE", kind("SELECT rid, wl FROM t0 LOCK IN SHARE MODE SKIP LOCKED"));
        assertEquals("SELECT FOR UPDATE", kind("SELECT a FROM t UNION ALL SELECT b FROM u FOR UPDATE"));
    }

    @Test
    void theIdIsStableAndIgnoresDataButNotWhatMatters() {
        Signature a = Signature.of(lostUpdate(1), TX_WSS);
        assertEquals(a, Signature.of(lostUpdate(7), TX_WSS), "different values, same signature");
        assertEquals(a.id(), Signature.of(lostUpdate(7), TX_WSS).id());
        assertTrue(a.id().matches("[0-9a-f]{12}"), a.id());
        // the canonical form, hence the id, is fixed across runs and machines; evidence without a cause
        // falls back on the case's statement kinds, and the features are never in it
        assertEquals("v3|wss|tx-wss|bug-candidate|h2|RC|default|UPDATE", a.canonical());
        assertEquals(a.id(), Signature.of(lostUpdate(3), TX_WSS).id());
        assertNotEquals(a.id(), Signature.of(lostUpdate(1).withIsolation(IsolationLevel.SERIALIZABLE), TX_WSS).id());
        assertNotEquals(a.id(), Signature.of(lostUpdate(1), TX_WSS.withClassification(Classification.DOCUMENTED, "r")).id());
        assertNotEquals(a.id(), Signature.of(lostUpdate(1),
                new Violation(WssKind.STMT_WSS, Classification.BUG_CANDIDATE, "s", "d", null)).id());
        assertTrue(Signature.of(lostUpdate(1).withExecution(ExecutionMode.PREPARED), TX_WSS).features().contains("prepared"));
    }

    @Test
    void rowTrackingCompanionsAreNotPartOfTheSignature() {
        TestCase plain = lostUpdate(1);
        List<txfuzz.model.Txn> txns = new java.util.ArrayList<>();
        for (txfuzz.model.Txn t : plain.transactions()) {
            List<Stmt> stmts = new java.util.ArrayList<>(t.statements());
            stmts.add(2, Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t WHERE wl LIKE '%," + t.id() + ".1'",
                    new txfuzz.model.Tracking(txfuzz.model.Tracking.Role.POST_READ, List.of("t"), false, null, t.id() + ".1", null, false)));
            txns.add(new txfuzz.model.Txn(t.id(), stmts));
        }
        TestCase tracked = plain.withTransactions(txns, List.of(1, 2, 1, 2, 1, 2, 1, 2));
        assertEquals(Signature.of(plain, TX_WSS), Signature.of(tracked, TX_WSS));
    }

    @Test
    void serverCrashesAreGroupedByTheAssertionThatFailed() {
        String crash = "MariaDB crashed during DROP DATABASE txfuzz_1:"
                + " InnoDB: Assertion failure in file dict0dict.cc line 1872 | InnoDB: Failing assertion: table->n_rec_locks == 0 | mysqld got signal 6";
        Violation v = ExplicitOracle.engineFailure("while running the case", new IllegalStateException(crash));
        assertEquals("table->n_rec_locks == 0", ((ExplicitOracle.Failure) v.evidence()).assertion(), "the oracle keeps the assertion as evidence");
        Signature a = Signature.of(lostUpdate(1), v);
        Signature b = Signature.of(lostUpdate(1).withIsolation(IsolationLevel.SERIALIZABLE), v);
        assertEquals(a, b, "the case and the level do not matter");
        assertEquals(List.of("assertion: table->n_rec_locks == 0"), a.cause());
        Violation other = ExplicitOracle.engineFailure("while running the case", new IllegalStateException(crash.replace("n_rec_locks", "n_waiting")));
        assertNotEquals(a, Signature.of(lostUpdate(1), other));
        assertNotEquals(Signature.of(lostUpdate(1), TX_WSS), Signature.of(lostUpdate(1).withIsolation(IsolationLevel.SERIALIZABLE), TX_WSS),
                "other findings keep their level");
    }

    /**
     * Reading the common forms from their words ({@code StatementStructure.head}, {@code declared}) gives the kinds and
     * schema features the parsed form gives, else the text, on every statement of generated and corpus cases.
     */
    @Test
    void theWordsGiveTheKindAndFeaturesOfTheParsedFormOrTheTextForEveryStatementTxfuzzRuns() {
        java.util.List<String> differ = new java.util.ArrayList<>();
        int byWords = 0;
        for (String sql : txfuzz.gen.SampleStatements.sql(40)) {
            java.util.Optional<txfuzz.gen.StatementStructure.Parsed> p = txfuzz.gen.StatementStructure.of(sql);
            String kind = p.map(txfuzz.gen.StatementStructure.Parsed::kind).orElseGet(() -> Signature.kindFromText(Signature.normalise(sql)));
            if (!kind.equals(Signature.statementKind(sql))) {
                differ.add(kind + " vs " + Signature.statementKind(sql) + ": " + sql);
            }
            if (sql.stripLeading().regionMatches(true, 0, "CREATE", 0, 6)) {
                java.util.Set<String> features = p.<java.util.Set<String>>map(x -> new java.util.TreeSet<>(x.declares()))
                        .orElseGet(() -> Signature.schemaFeaturesFromText(Signature.normalise(sql)));
                if (!features.equals(Signature.schemaFeatures(sql))) {
                    differ.add(features + " vs " + Signature.schemaFeatures(sql) + ": " + sql);
                }
            }
            if (txfuzz.gen.StatementStructure.head(sql).isPresent() || txfuzz.gen.StatementStructure.declared(sql).isPresent()) {
                byWords++;
            }
        }
        assertEquals(List.of(), differ);
        assertTrue(byWords > 1000, "read from their words: " + byWords);
    }
}
