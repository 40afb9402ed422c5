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
import txfuzz.report.IsolationTesterSpec;

/** The reader and the writer of isolation-tester specs agree: txfuzz's own reproduce.spec imports as the case it was written from. */
class SpecRoundTripTest {

    private static TestCase corpus(String name) throws Exception {
        try (var in = SpecRoundTripTest.class.getResourceAsStream("/corpus/bugs/" + name + ".case.json")) {
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
    void aWrittenSpecReadsBackAsItsCase() throws Exception {
        Target pg = TestServers.shared("postgres");
        for (String name : List.of("pg-merge-rr-lost-update", "pg-rr-on-conflict-after-concurrent-delete", "pg-serial-insert-first-commit-last")) {
            TestCase c = corpus(name);
            String spec = IsolationTesterSpec.render(c, pg, "round trip").orElseThrow();
            var f = Importer.read(spec, name + ".spec", CaseSource.Format.ISOLATION_SPEC, Importer.Options.defaults(), Path.of(name + ".spec"));
            assertEquals(1, f.cases().size(), name + ": " + f.skipped() + "\n" + spec);
            TestCase back = f.cases().get(0).testCase();
            assertEquals(c.isolation(), back.isolation(), name);
            assertEquals(c.setup(), back.setup(), name);
            assertEquals(c.tables(), back.tables(), name);
            assertEquals(statements(c), statements(back), name);
            assertEquals(submitted(c), submitted(back), name);
        }
    }
}
