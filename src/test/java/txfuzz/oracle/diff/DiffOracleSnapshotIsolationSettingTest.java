package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Subject;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.OracleContext;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssOracle;

/**
 * One MariaDB 11.4.5 setting on either side, as {@code compat --subjects mariadb+innodb_snapshot_isolation=OFF,…=ON}
 * builds the oracle: Hermitage's lost update (P4) at REPEATABLE READ commits both increments with the variable OFF
 * and fails the second writer with 1020 with it ON. Both behaviours are the manual's, so the divergence is a
 * compatibility difference between the settings, never a bug candidate; and the same setting on both sides agrees.
 */
class DiffOracleSnapshotIsolationSettingTest {
    private static final Subject OFF = Subject.parse("mariadb+innodb_snapshot_isolation=OFF");
    private static final Subject ON = Subject.parse("mariadb+innodb_snapshot_isolation=ON");
    private static Target off;
    private static Target on;

    @BeforeAll
    static void start() {
        // the two servers start side by side: each start mostly waits for its server
        java.util.concurrent.CompletableFuture<Target> offStarting = java.util.concurrent.CompletableFuture.supplyAsync(() -> OFF.open(null));
        try {
            on = ON.open(null);
        } finally {
            off = offStarting.join();
        }
    }

    @AfterAll
    static void stop() {
        if (off != null) {
            off.close();
        }
        if (on != null) {
            on.close();
        }
    }

    private static TestCase lostUpdate() throws Exception {
        try (var in = DiffOracleSnapshotIsolationSettingTest.class.getResourceAsStream("/corpus/hermitage/maria-rr-p4.case.json")) {
            return CaseJson.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), "maria-rr-p4");
        }
    }

    /** The oracle as the campaign makes it, from the subjects' context (levels paired by {@link OracleContext#levelOf}). */
    private static Verdict judge(OracleContext context, TestCase c) throws Exception {
        try (DiffOracle diff = DiffOracle.of(context); Executor ex = new Executor(context.primary(), ExecutorConfig.defaults())) {
            return diff.judge(c, ex.run(c), ex);
        }
    }

    @Test
    void onAgainstOffIsACompatibilityDifferenceAtTheSecondWriter() throws Exception {
        OracleContext context = OracleContext.of(List.of(new OracleContext.Opened(OFF, off), new OracleContext.Opened(ON, on)),
                ExecutorConfig.defaults()).withOwnOracles(t -> List.of(new WssOracle()));
        // ON's REPEATABLE READ keeps snapshot isolation, OFF's only read committed's promise: still the level of the same name
        assertEquals(Optional.of(IsolationLevel.REPEATABLE_READ), context.levelOf(context.subjects().get(1), IsolationLevel.REPEATABLE_READ, "default"));
        Verdict v = judge(context, lostUpdate());
        assertEquals(1, v.violations().size(), v.toString());
        Violation x = v.violations().get(0);
        System.out.println(x.summary() + "\n" + x.details());
        DiffEvidence e = (DiffEvidence) x.evidence();
        // OFF makes T2's UPDATE wait for T1 and then overwrite its update; ON fails it at once with 1020
        assertEquals(DivergenceKind.BLOCKING, e.divergence().kind());
        assertEquals(new StmtRef(2, 2), e.divergence().at(), "T2's UPDATE, the second writer");
        assertEquals(Label.COMPATIBILITY, e.triaged().label());
        assertEquals(Cause.WRITE_CONFLICT, e.triaged().cause());
        assertEquals(Classification.DOCUMENTED, x.classification());
        assertTrue(x.details().contains("OFF's own oracles (wss) report no bug candidate"), x.details());
        assertTrue(x.reference().contains("https://mariadb.com/kb/en/innodb-system-variables/#innodb_snapshot_isolation"), x.reference());
    }

    @Test
    void theSameSettingOnBothSidesAgrees() throws Exception {
        OracleContext context = OracleContext.of(List.of(new OracleContext.Opened(OFF, off), new OracleContext.Opened(OFF, off)),
                ExecutorConfig.defaults()).withOwnOracles(t -> List.of(new WssOracle()));
        assertTrue(judge(context, lostUpdate()).isClean());
    }
}
