package txfuzz.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class CaseJsonTest {
    private static TestCase sample() {
        return new TestCase(TestCase.FORMAT_VERSION, "h2", 7, 3, IsolationLevel.REPEATABLE_READ, "default", ExecutionMode.PREPARED,
                List.of("t0"), List.of("CREATE TABLE t0(c0 INT)", "INSERT INTO t0 VALUES (1)"),
                List.of(new Txn(1, List.of(Stmt.begin(), Stmt.of(StmtKind.UPDATE, "UPDATE t0 SET c0 = 2"), Stmt.commit())),
                        new Txn(2, List.of(Stmt.of(StmtKind.DELETE, "DELETE FROM t0")))),
                List.of(1, 2, 1, 1));
    }

    @Test
    void roundTrips() throws Exception {
        TestCase c = sample();
        assertEquals(c, CaseJson.read(CaseJson.write(c), "mem"));
    }

    @Test
    void theEngineItWasFoundOnRoundTripsAndCasesWithoutOneStillLoad() throws Exception {
        TestCase found = sample().withEngine(new EngineVersion("h2", "H2 2.3.232 (2024-08-11)", "2.3.232"));
        String json = CaseJson.write(found);
        assertTrue(json.contains("\"release\" : \"2.3.232\""), json);
        assertEquals(found, CaseJson.read(json, "mem"));
        assertEquals(found.engine(), CaseJson.read(json, "mem").withTransactions(found.transactions(), found.order()).engine(),
                "a reduced case keeps it");
        String older = CaseJson.write(sample());
        assertTrue(!older.contains("\"engine\""), older);
        assertEquals(null, CaseJson.read(older, "old.json").engine());
        CaseFormatException e = assertThrows(CaseFormatException.class, () -> CaseJson.read(json.replace("\"dbms\" : \"h2\",\n    \"version\"",
                "\"version\""), "x.json"));
        assertTrue(e.getMessage().contains("'engine' needs 'dbms' and 'version'"), e.getMessage());
    }

    @Test
    void sessionSettingsAndOwnLevelsRoundTripAndOldCaseFilesLoadUnchanged() throws Exception {
        TestCase plain = sample();
        String older = CaseJson.write(plain);
        assertTrue(!older.contains("\"settings\"") && !older.contains("\"isolation\" : \"READ_UNCOMMITTED\""), older);
        assertEquals(plain, CaseJson.read(older, "old.json"));
        assertTrue(!plain.mixedLevels() && !plain.sessionSettings());
        Txn t2 = plain.txn(2);
        TestCase mixed = plain.withTransactions(List.of(plain.txn(1),
                new Txn(2, t2.statements(), List.of("SET innodb_snapshot_isolation=ON"), IsolationLevel.READ_UNCOMMITTED)), plain.order());
        String json = CaseJson.write(mixed);
        assertTrue(json.contains("\"settings\" : [ \"SET innodb_snapshot_isolation=ON\" ]"), json);
        assertEquals(mixed, CaseJson.read(json, "mem"));
        assertTrue(mixed.mixedLevels() && mixed.sessionSettings());
        assertEquals(IsolationLevel.READ_UNCOMMITTED, mixed.txn(2).levelIn(mixed));
        assertEquals(IsolationLevel.REPEATABLE_READ, mixed.txn(1).levelIn(mixed));
        // a transaction rebuilt with other statements (the reducer, the oracles' replays) keeps its session
        assertEquals(mixed.txn(2).settings(), mixed.txn(2).with(1, mixed.txn(2).statements()).settings());
        assertEquals(IsolationLevel.READ_UNCOMMITTED, mixed.txn(2).with(1, mixed.txn(2).statements()).isolation());
    }

    @Test
    void malformedJsonSaysWhere() {
        CaseFormatException e = assertThrows(CaseFormatException.class, () -> CaseJson.read("{\"dbms\": \"h2\",\n  \"tables\": [", "x.json"));
        assertTrue(e.getMessage().startsWith("x.json:2:"), e.getMessage());
    }

    @Test
    void anOrderThatDoesNotFitTheTransactionsIsRejectedWithTheReason() {
        String json = CaseJson.write(sample()).replace("\"order\" : [ 1, 2, 1, 1 ]", "\"order\" : [ 1, 2, 1 ]");
        CaseFormatException e = assertThrows(CaseFormatException.class, () -> CaseJson.read(json, "x.json"));
        assertTrue(e.getMessage().contains("order names T1 2 times, but it has 3 statements"), e.getMessage());
    }

    @Test
    void unknownFieldsAndWrongVersionsAreRejected() {
        String unknown = CaseJson.write(sample()).replace("\"dbms\"", "\"colour\" : 1, \"dbms\"");
        assertThrows(CaseFormatException.class, () -> CaseJson.read(unknown, "x.json"));
        String future = CaseJson.write(sample()).replace("\"formatVersion\" : 1", "\"formatVersion\" : 99");
        CaseFormatException e = assertThrows(CaseFormatException.class, () -> CaseJson.read(future, "x.json"));
        assertTrue(e.getMessage().contains("format version 99"), e.getMessage());
    }
}
