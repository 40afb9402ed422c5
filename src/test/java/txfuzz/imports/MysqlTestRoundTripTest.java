package txfuzz.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.model.CaseJson;
import txfuzz.model.CaseSource;
import txfuzz.model.TestCase;
import txfuzz.report.MysqlTestScript;

/** The reader and the writer of mysqltest files agree: txfuzz's own reproduce.test imports as the case it was written from. */
class MysqlTestRoundTripTest {

    private static TestCase corpus(String name) throws Exception {
        try (var in = MysqlTestRoundTripTest.class.getResourceAsStream("/corpus/bugs/" + name + ".case.json")) {
            return CaseJson.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), name);
        }
    }

    /** The transactions, each as its statements (kind and SQL), in the order they first submit: the case up to its transactions' numbers. */
    private static List<List<String>> statements(TestCase c) {
        return c.order().stream().distinct().map(id -> c.txn(id).statements().stream().map(s -> s.kind() + " " + s.sql()).toList()).toList();
    }

    /** The submitted order as statements. */
    private static List<String> submitted(TestCase c) {
        return c.submittedOrder().stream().map(r -> c.stmt(r).kind() + " " + c.stmt(r).sql()).toList();
    }

    @Test
    void aWrittenTestReadsBackAsItsCase() throws Exception {
        Target maria = TestServers.shared("mariadb");
        for (String name : List.of("mdev-29123-rr", "mdev-30835-update-rc", "maria-rc-update-misses-row-moved-behind-scan")) {
            TestCase c = corpus(name);
            String test = MysqlTestScript.render(c, null, maria, "round trip").orElseThrow();
            var f = Importer.read(test, name + ".test", CaseSource.Format.MYSQLTEST, Importer.Options.defaults(), Path.of(name + ".test"));
            assertEquals(1, f.cases().size(), name + ": " + f.skipped() + "\n" + test);
            TestCase back = f.cases().get(0).testCase();
            assertEquals(c.isolation(), back.isolation(), name);
            assertEquals(c.setup(), back.setup(), name);
            assertEquals(c.tables(), back.tables(), name);
            assertEquals(statements(c), statements(back), name + "\n" + test);
            assertEquals(submitted(c), submitted(back), name);
        }
    }

    /** Each transaction's level and session settings, in the order they first submit. */
    private static List<String> sessions(TestCase c) {
        return c.order().stream().distinct().map(id -> c.txn(id).levelIn(c) + " " + c.txn(id).settings()).toList();
    }

    @Test
    void aSessionsOwnLevelAndSettingsAreWrittenOnItsConnectionAndReadBack() throws Exception {
        Target maria = TestServers.shared("mariadb");
        var lockIsolation = Importer.read(MysqlTestImportTest.LOCK_ISOLATION, Importer.Options.defaults());
        for (int k : new int[] {0, 1, 3}) { // MDEV-26642 (a setting), MDEV-26643 at READ UNCOMMITTED (a setting and two levels), con_weird's
            TestCase c = lockIsolation.cases().get(k).testCase();
            String test = MysqlTestScript.render(c, null, maria, "round trip").orElseThrow();
            var f = Importer.read(test, "x.test", CaseSource.Format.MYSQLTEST, Importer.Options.defaults(), Path.of("x.test"));
            assertEquals(1, f.cases().size(), f.skipped() + "\n" + test);
            TestCase back = f.cases().get(0).testCase();
            assertEquals(sessions(c), sessions(back), test);
            assertEquals(statements(c), statements(back), test);
        }
    }
}
