package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.BugReplay.Result;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * The H2 entries of docs/bugs.md. A bug H2 still has is asserted on the bundled H2 (no version
 * option), so the test fails the day an upgrade of the bundled jar fixes it and docs/bugs.md must
 * say so; a fixed one is asserted on the newest version that has it. Each also runs a control the
 * oracle must call clean (READ COMMITTED, or the schedule without the triggering write), so the
 * assertion cannot pass by the oracle flagging everything.
 */
class H2BugsTest {

    /** h2-rr-key-change-both-versions: a transaction reads both versions of rows whose key it changed. */
    @Test
    void h2RrKeyChangeBothVersionsStillShowsOnTheBundledH2() throws Exception {
        TestCase c = BugReplay.corpusCase("h2-rr-key-change-both-versions");
        try (Target h2 = Targets.create("h2")) {
            Result rr = BugReplay.replay(h2, c, "isolation");
            assertEquals(Set.of("isolation/internal/bug-candidate"), rr.labels(), rr.toString());
            // the two-row table read back as three rows: row 2 before and after the transaction's own write
            assertEquals(3, rows(rr, 1, 3).size(), rr.trace().toString());
            Result rc = BugReplay.replay(h2, c.withIsolation(IsolationLevel.READ_COMMITTED), "isolation");
            assertEquals(Set.of(), rc.labels(), rc.toString());
        }
    }

    /** h2-rr-shifted-keys-old-max: after shifting every key, MAX(key) still sees an old key, so no row matches. */
    @Test
    void h2RrShiftedKeysOldMaxStillShowsOnTheBundledH2() throws Exception {
        TestCase c = BugReplay.corpusCase("h2-rr-shifted-keys-old-max");
        try (Target h2 = Targets.create("h2")) {
            Result rr = BugReplay.replay(h2, c, "equiv");
            assertEquals(Set.of("equiv/equiv-result/bug-candidate"), rr.labels(), rr.toString());
            assertEquals(List.of(), rows(rr, 1, 3), "the row with the largest key (11) is not found");
            Result rc = BugReplay.replay(h2, c.withIsolation(IsolationLevel.READ_COMMITTED), "equiv");
            assertEquals(Set.of(), rc.labels(), rc.toString());
        }
    }

    /** h2-rr-descending-index-row-twice: a read ordered by an index column the transaction just set returns a row twice. */
    @Test
    void h2RrDescendingIndexRowTwiceStillShowsOnTheBundledH2() throws Exception {
        TestCase c = BugReplay.testCase("h2-rr-descending-index-row-twice");
        try (Target h2 = Targets.create("h2")) {
            Result rr = BugReplay.replay(h2, c, "equiv");
            assertEquals(Set.of("equiv/equiv-result/bug-candidate"), rr.labels(), rr.toString());
            assertEquals(3, rows(rr, 1, 3).size(), "two rows, one of them twice: " + rr.trace());
            Result rc = BugReplay.replay(h2, c.withIsolation(IsolationLevel.READ_COMMITTED), "equiv");
            assertEquals(Set.of(), rc.labels(), rc.toString());
        }
    }

    /**
     * h2-rc-waiting-update-skips-rekeyed-row: T1's UPDATE without WHERE waits for T2, which moved a
     * row to a new key; once T2 commits, T1 updates only the other row.
     */
    @Test
    void h2RcWaitingUpdateSkipsRekeyedRowStillShowsOnTheBundledH2() throws Exception {
        TestCase c = BugReplay.testCase("h2-rc-waiting-update-skips-rekeyed-row");
        try (Target h2 = Targets.create("h2")) {
            Result r = BugReplay.replay(h2, c, "wss", "explicit");
            assertTrue(r.trace().executed(new StmtRef(1, 1)).orElseThrow().blocked(), "T1's UPDATE waited for T2: " + r.trace());
            assertEquals(List.of(List.of("1", "7"), List.of("7", "20")), r.trace().finalState().tables().get("t0"),
                    "row 7 kept c1 = 20: " + r.trace());
            assertTrue(r.labels().contains("wss/write-outcome/bug-candidate"), r.toString());
            // control: T2 changes a non-key column instead; T1 waits, then updates both rows
            TestCase control = Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t0")
                    .setup("CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 INT)", "INSERT INTO t0 (c0, c1) VALUES (1, 10), (2, 20)")
                    .txn("UPDATE t0 SET c1 = c1 - 3").txn("UPDATE t0 SET c1 = 70 WHERE c0 = 2").order(2, 2, 1, 1, 2, 1);
            Result clean = BugReplay.replay(h2, control, "wss", "explicit");
            assertEquals(Set.of(), clean.labels(), clean.toString());
            assertEquals(List.of(List.of("1", "7"), List.of("2", "67")), clean.trace().finalState().tables().get("t0"));
        }
    }

    /** h2-rr-rewritten-key-row-twice: fixed in 2.5.250; 2.4.240 is the newest release that has it. */
    @Test
    void h2RrRewrittenKeyRowTwiceIsCaughtOn2_4_240AndGoneFromTheBundledH2() throws Exception {
        TestCase c = BugReplay.corpusCase("h2-rr-rewritten-key-row-twice");
        try (Target h2 = Targets.create("h2", TargetOptions.version("2.4.240"))) {
            Result r = BugReplay.replay(h2, c, "equiv");
            assertEquals(Set.of("equiv/equiv-result/bug-candidate"), r.labels(), r.toString());
            assertEquals(3, rows(r, 1, 3).size(), "two rows, one of them twice: " + r.trace());
        }
        try (Target h2 = Targets.create("h2")) {
            Result r = BugReplay.replay(h2, c, "equiv");
            assertEquals(Set.of(), r.labels(), r.toString());
        }
    }

    /** h2-merge-hang-read-uncommitted: fixed in 2.4.240; 2.3.232 is the newest release that has it. */
    @Test
    void h2MergeHangReadUncommittedIsCaughtOn2_3_232() throws Exception {
        TestCase c = BugReplay.corpusCase("h2-merge-hang-read-uncommitted");
        try (Target h2 = Targets.create("h2", TargetOptions.version("2.3.232"))) {
            Result r = BugReplay.replay(h2, c, "wss", "explicit");
            assertEquals(Set.of("explicit/hang/bug-candidate"), r.labels(), r.toString());
            Result rc = BugReplay.replay(h2, c.withIsolation(IsolationLevel.READ_COMMITTED), "wss", "explicit");
            assertEquals(Set.of(), rc.labels(), "at READ COMMITTED the MERGE returns: " + rc);
        }
    }

    private static List<List<String>> rows(Result r, int txn, int stmt) {
        return r.trace().executed(new StmtRef(txn, stmt)).orElseThrow().result().rows();
    }
}
