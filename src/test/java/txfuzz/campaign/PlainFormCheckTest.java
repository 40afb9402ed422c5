package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;
import txfuzz.oracle.CommitDroppingTarget;

/**
 * A reduced finding whose plain form behaves differently keeps its tracked SQL, and its report says
 * why. H2 with an injected fault that strikes only in tables with txfuzz's tracking column: of two
 * overlapping transactions, one loses its commit when tracked, neither when plain. The campaign has no plain
 * twins (a fixed family of cases), so the case as found is reduced, and only the check of the
 * reduced case's plain form can tell.
 */
class PlainFormCheckTest {
    /**
     * T1 and T2 insert a row each, overlapping; T3, a read, is there for the reducer to remove. Inserts,
     * because a lost insert shows in the plain columns: the reducer could turn an UPDATE into one
     * that changes nothing but wl, and then the plain run could not show the lost commit.
     */
    private static TestCase overlappingInsertsAndARead(long iteration) {
        List<Txn> txns = new ArrayList<>();
        for (int id = 1; id <= 2; id++) {
            String tag = id + ".1";
            txns.add(new Txn(id, List.of(Stmt.begin(),
                    Stmt.of(StmtKind.INSERT, "INSERT INTO t (id, v, rid, wl) VALUES (" + (id + 2) + ", " + id + ", '" + tag + ".0', '," + tag + "')",
                            Tracking.write("t", tag, List.of(tag + ".0"), false)),
                    Stmt.commit())));
        }
        txns.add(new Txn(3, List.of(Stmt.begin(),
                Stmt.of(StmtKind.SELECT, "SELECT x0.rid, x0.wl, x0.v FROM t x0 WHERE x0.id = 2", Tracking.read(List.of("t"), false, "id = 2")),
                Stmt.commit())));
        return new TestCase(TestCase.FORMAT_VERSION, "h2", 7, iteration, IsolationLevel.READ_COMMITTED, "default", null, List.of("t"),
                List.of("CREATE TABLE t (id INT PRIMARY KEY, v INT, rid VARCHAR(1000), wl VARCHAR(1000))",
                        "INSERT INTO t (id, v, rid, wl) VALUES (1, 0, '1', ',0'), (2, 0, '2', ',0')"),
                txns, List.of(1, 2, 3, 3, 1, 2, 3, 1, 2));
    }

    @Test
    void aPlainFormThatBehavesDifferentlyKeepsTheTrackedSqlAndSaysWhy(@TempDir Path out) throws Exception {
        CampaignConfig config = new CampaignConfig(List.of(IsolationLevel.READ_COMMITTED), List.of(), List.of("wss", "isolation"), 1, null,
                7, out, GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ofSeconds(60));
        try (CommitDroppingTarget target = new CommitDroppingTarget(new H2Target(), true)) {
            new Campaign(target, config, new PrintStream(OutputStream.nullOutputStream()), (level, mode, i) -> overlappingInsertsAndARead(i), null).run();
        }
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        JsonNode primary = null;
        for (JsonNode f : summary.get("findings")) {
            if (f.get("primary").asBoolean()) {
                primary = f;
            }
        }
        assertTrue(primary != null, summary.toString());
        assertEquals("reduced", primary.get("reduction").get("status").asText(), "T3 can go: " + primary);
        Path dir = out.resolve(primary.get("dir").asText());

        String check = Files.readString(dir.resolve("self-check.txt"));
        assertTrue(check.contains("behaved differently"), check);
        assertTrue(check.contains("final contents differ"), "the tracked run lost a commit, the plain one did not: " + check);

        String readme = Files.readString(dir.resolve("README.md"));
        int why = readme.indexOf("The SQL below keeps txfuzz's row tracking (`rid`/`wl` columns, tags, companion statements), because without it"
                + " the reduced case behaved differently");
        int schema = readme.indexOf("## Schema and data");
        assertTrue(why > 0 && why < schema, readme);
        assertTrue(readme.substring(why, schema).contains("final contents differ"), "the differences are in the report: " + readme);
        assertFalse(readme.contains("## The same case with txfuzz's row tracking"), "no plain program is shown first");
        assertTrue(readme.substring(schema).contains("rid VARCHAR(1000), wl VARCHAR(1000)"), "the tracked SQL is the case shown");
        assertFalse(Files.readString(dir.resolve("reproduce.sql")).contains("row tracking, as judged"), "reproduce.sql is the tracked case alone");
    }
}
