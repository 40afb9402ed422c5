package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.campaign.Oracles;
import txfuzz.exec.Cases;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.equiv.EquivOracle;

/**
 * replay, reduce and bisect judge a case with the oracles it needs when none are named: a finding's
 * printed replay command must reproduce its verdict, and an instrumented case's verdict comes from
 * the isolation oracle.
 */
class ReplayOraclesTest {
    private static final Path KEY_CHANGE = Path.of("src/main/resources/corpus/bugs/h2-rr-key-change-both-versions.case.json");

    @Test
    void eachCaseGetsTheOraclesItWasMadeFor() throws Exception {
        TestCase plain = Cases.on("h2").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)").txn("UPDATE t SET v = 1").order(1, 1, 1);
        assertEquals(List.of("wss", "explicit"), Oracles.forCase(plain));
        TestCase tracked = CaseJson.read(KEY_CHANGE);
        assertEquals(List.of("wss", "explicit", "isolation"), Oracles.forCase(tracked));
        assertEquals(List.of("wss", "explicit", "isolation", "equiv"), Oracles.forCase(new EquivOracle().prepare(tracked)));
    }

    @Test
    void anInstrumentedCaseIsJudgedByTheIsolationOracleWithoutBeingAsked() {
        // H2's REPEATABLE READ key change showing both row versions: only the isolation oracle sees it
        CliTest.Result named = CliTest.run("replay", KEY_CHANGE.toString(), "--oracle", "wss,explicit", "--quiet");
        assertEquals(Main.OK, named.code(), named.toString());
        CliTest.Result chosen = CliTest.run("replay", KEY_CHANGE.toString(), "--quiet");
        assertEquals(Main.FOUND, chosen.code(), chosen.toString());
        assertTrue(chosen.out().contains("Verdict: bug-candidate"), chosen.out());
    }
}
