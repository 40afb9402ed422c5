package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.PrintedSql.Step;

/** How docs/bugs.md's blocks are read, and that every block on the page is one the engine tests run. */
class PrintedSqlTest {
    /** The blocks the *BugsTest classes run, each on every version its entry names. */
    private static final Set<String> RUN_BY_TESTS = Set.of(
            "h2-rr-descending-scan-own-write", "h2-rr-key-change-both-versions", "h2-rr-shifted-keys-old-max",
            "h2-rr-descending-index-row-twice", "h2-rr-descending-scan-deleted-row", "h2-rc-waiting-update-skips-rekeyed-row", "h2-rc-waiting-update-numeric-key", "h2-rc-waiting-update-reinserted-key",
            "h2-rr-max-after-key-change-never-returns", "h2-rr-max-after-own-insert-below", "h2-rr-max-after-own-lock-below",
            "h2-rr-merge-lock-npe", "h2-rr-merge-lock-npe-read-committed", "h2-rc-waiting-delete-skips-rekeyed-row", "h2-rc-waiting-delete-numeric-key",
            "h2-fk-check-does-not-lock-parent", "h2-fk-check-does-not-lock-deleted-parent", "h2-fk-uncommitted-child-read-uncommitted",
            "h2-fk-child-of-uncommitted-parent",
            "h2-rr-rewritten-key-row-twice", "h2-merge-hang-read-uncommitted", "h2-for-update-deadlock-victim-keeps-waiters",
            "h2-deadlock-update-victim-releases-waiters", "h2-multi-row-insert-own-row-duplicate", "h2-multi-row-insert-committed-key",
            "h2-savepoint-undo-strands-waiter", "h2-savepoint-undo-earlier-write-wakes-waiter",
            "h2-ru-waiting-write-retries-until-lock-timeout", "h2-ru-waiting-write-insert-outside-its-range",
            "h2-ru-waiting-write-subquery-retries-until-lock-timeout", "h2-ru-waiting-write-subquery-spins-after-blocker-rollback",
            "h2-ru-waiting-write-subquery-without-index-after-blocker-rollback", "sqlite-stale-schema-refuses-upsert", "sqlite-stale-schema-plain-insert",
            "hsqldb-mvlocks-merge-deleted-row-commit-npe",
            "hsqldb-mvlocks-update-updated-row-commit-fails", "hsqldb-mvlocks-writer-reads-start-snapshot", "hsqldb-mvlocks-writer-update-after-wait",
            "hsqldb-2pl-failed-statement-releases-read-lock", "hsqldb-2pl-failed-statement-releases-read-lock-mvlocks", "hsqldb-2pl-read-keeps-read-lock",
            "hsqldb-mvlocks-write-skew-after-wait", "hsqldb-locks-read-after-wait", "hsqldb-mvcc-fk-check-ignores-uncommitted-child",
            "hsqldb-locks-fk-check-refuses-uncommitted-child", "hsqldb-mvcc-fk-rewritten-parent-key-refuses-child", "hsqldb-left-join-range-and-like-general-error", "hsqldb-distinct-ordered-by-other-index-general-error", "hsqldb-distinct-ordered-by-other-index-without-index", "derby-coalesce-max-in-list-internal-error", "derby-coalesce-max-in-list-without-key",
            "derby-two-in-subqueries-concurrent-modification", "derby-two-in-subqueries-exists-control",
            "derby-merge-int-into-double-restore-error", "derby-merge-int-into-double-five-rows",
            "derby-merge-leaves-stale-index-entry", "derby-merge-index-without-default", "hsqldb-left-join-range-and-like-without-index",
            "derby-ru-merge-stale-row-lost-update", "derby-ru-merge-keeps-rolled-back-write", "derby-deferred-update-stale-row-lost-update",
            "derby-deferred-update-serializable", "duckdb-update-after-concurrent-delete", "duckdb-key-change-lost-update",
            "duckdb-indexed-column-update-lost-update", "duckdb-update-different-columns-no-conflict", "duckdb-update-same-column-conflict",
            "mariadb-drop-after-deadlock-n-rec-locks", "mariadb-rc-semi-consistent-update", "mariadb-rc-semi-consistent-delete",
            "mariadb-rc-semi-consistent-larger-key", "mariadb-rc-semi-consistent-snapshot-isolation",
            "mariadb-rc-semi-consistent-repeatable-read", "mariadb-rr-locking-read-write-skew", "mariadb-rr-locking-read-read-only-anomaly",
            "mariadb-rr-locking-read-g2-item", "pg-merge-rr-lost-update");

    @Test
    void everyBlockOnThePageParsesAndIsRunByAnEngineTest() throws Exception {
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^```sql (\\S+)$").matcher(Files.readString(Path.of("docs", "bugs.md")));
        while (m.find()) {
            names.add(m.group(1));
        }
        assertEquals(new TreeSet<>(RUN_BY_TESTS), names, "a block added to docs/bugs.md needs a test that runs it on its versions");
        for (String name : names) {
            assertFalse(PrintedSql.of(name).steps().isEmpty(), name);
        }
    }

    @Test
    void aBlockIsReadAsAPersonAtTheClientReadsIt() {
        PrintedSql p = PrintedSql.parse("example", List.of(
                "CREATE TABLE t (k INT);                 -- setup, autocommit",
                "-- both sessions: SET A = 1; SET B = 2;",
                "-- T2 (anything may follow)",
                "MERGE INTO t USING s",
                "  -- a comment line inside a statement",
                "  ON (t.k = s.k) WHEN MATCHED THEN DELETE;  -- 1 row",
                "-- T1: its UPDATE returns",
                "COMMIT;"));
        assertEquals(List.of("SET A = 1", "SET B = 2"), p.bothSessions());
        assertEquals(List.of(new Step(PrintedSql.SETUP, "CREATE TABLE t (k INT)"),
                new Step("T2", "MERGE INTO t USING s ON (t.k = s.k) WHEN MATCHED THEN DELETE"),
                new Step("T1", "COMMIT")), p.steps());
        assertThrows(AssertionError.class, () -> PrintedSql.parse("unfinished", List.of("SELECT 1")));
        assertEquals(List.of(List.of("1", "7"), java.util.Arrays.asList("7", null)), PrintedSql.rows("(1, 7) (7, NULL)"));
    }
}
