package txfuzz.oracle.wss;

import java.util.Optional;
import java.util.regex.Pattern;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * When a snapshot-reading transaction took the snapshot a statement reads a table from, as a schedule
 * position (the number of statements completed before it: a transaction that committed at a smaller
 * position is in the snapshot). Which statement takes it is the level's documented rule.
 */
final class SnapshotPoints {
    /** Which statement of a transaction takes the snapshot a table is read from. */
    enum Rule {
        /** its BEGIN (its first statement when it has none) */
        AT_BEGIN,
        /** its first statement after BEGIN, for every table */
        AT_FIRST_STATEMENT,
        /** for each table, the first statement of the transaction that names it (H2's REPEATABLE READ) */
        PER_TABLE_AT_FIRST_TOUCH
    }

    private final TestCase testCase;
    private final Trace trace;
    private final Rule rule;

    SnapshotPoints(TestCase testCase, Trace trace, Rule rule) {
        this.testCase = testCase;
        this.trace = trace;
        this.rule = rule;
    }

    /**
     * The position of the snapshot statement {@code at} of its transaction reads {@code table} from;
     * {@code firstBodyStatement} is the transaction's first effective statement. A table the
     * transaction has not named by then is read as of {@code at}'s submission (it cannot affect
     * {@code at}, unless named in a way this does not see).
     */
    int point(StmtRef at, String table, StmtRef firstBodyStatement) {
        return switch (rule) {
            case AT_BEGIN -> submitted(testCase.txn(at.txn()).explicit() ? new StmtRef(at.txn(), 0) : firstBodyStatement);
            case AT_FIRST_STATEMENT -> submitted(firstBodyStatement);
            case PER_TABLE_AT_FIRST_TOUCH -> firstTouch(at, table).map(this::submitted).orElseGet(() -> submitted(at));
        };
    }

    /** The first executed statement of {@code at}'s transaction, up to {@code at}, whose text names {@code table}. */
    private Optional<StmtRef> firstTouch(StmtRef at, String table) {
        Pattern name = Pattern.compile("(?<![\\w\"`'])\"?" + Pattern.quote(table) + "\"?(?![\\w\"`'])", Pattern.CASE_INSENSITIVE);
        for (int i = 0; i <= at.index(); i++) {
            StmtRef ref = new StmtRef(at.txn(), i);
            if (trace.executed(ref).isPresent() && name.matcher(testCase.stmt(ref).sql()).find()) {
                return Optional.of(ref);
            }
        }
        return Optional.empty();
    }

    private int submitted(StmtRef ref) {
        return trace.executed(ref).map(ExecutedStmt::completedBefore).orElse(0);
    }
}
