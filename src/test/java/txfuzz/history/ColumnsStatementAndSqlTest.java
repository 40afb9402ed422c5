package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The columns keep an operation's statement in a byte, past {@link HistoryColumns#STMT_ESCAPE} in a side table, and the
 * transactions' statements only once one has any: every statement number, small or large, and every transaction's SQL
 * (none before the first that has some, and after it) must come back as written, from either file form's reader.
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ColumnsStatementAndSqlTest {
    /** Around the escape byte, and far past it; more than a block's worth of operations so that later blocks are used too. */
    private static final int[] STATEMENTS = {0, 1, 253, 254, 255, 256, 511, 70_000, Integer.MAX_VALUE};

    @TempDir
    Path dir;

    private static History history() {
        History.Builder b = History.builder();
        History.TxnBuilder t = b.txn(1).session(1);
        for (int s : STATEMENTS) {
            t.stmt(s).read("r" + s, 0);
        }
        t.commit();
        b.txn(2).session(2).read("r1", 0).update("r1", 0).commit(); // no SQL before the first transaction with some
        b.txn(3).session(1).sql("SELECT v FROM t WHERE k = 1").read("r1", 0, 2).sql("UPDATE t SET v = 3 WHERE k = 1")
                .update("r1", 0, 2).commit();
        b.txn(4).session(2).read("r1", 0, 2, 3).commit(); // none after it
        int next = 5;
        for (int k = 0; k < 40_000; k++) { // past the first block of operations
            b.txn(next++).session(3).stmt(STATEMENTS[k % STATEMENTS.length]).read("r2", 0).commit();
        }
        return b.build();
    }

    @Test
    void statementsAndSqlComeBackFromTheColumns() throws Exception {
        History h = history();
        assertSameTransactions(h, HistoryColumns.of(h).history());
        Path compact = dir.resolve("h.txh");
        CompactHistory.write(h, compact);
        assertSameTransactions(h, HistoryFiles.read(compact));
    }

    private static void assertSameTransactions(History expected, History actual) {
        assertEquals(expected.size(), actual.size());
        List<Integer> statements = new ArrayList<>();
        for (int i = 0; i < expected.size(); i++) {
            Transaction want = expected.transactions().get(i);
            Transaction got = actual.transactions().get(i);
            assertEquals(want.sql(), got.sql(), "T" + want.id() + "'s statements");
            assertEquals(want.ops(), got.ops(), "T" + want.id() + "'s operations");
            if (i == 0) {
                got.ops().forEach(o -> statements.add(o.stmt()));
            }
        }
        List<Integer> written = new ArrayList<>();
        for (int s : STATEMENTS) {
            written.add(s);
        }
        assertEquals(written, statements);
    }
}
