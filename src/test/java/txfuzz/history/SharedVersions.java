package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;

/**
 * A history whose row r1 is read and written in several versions of one order, and read once in an incompatible one:
 * a reader of either file form must give every compatible version a view of one array, and the incompatible one its own.
 */
final class SharedVersions {
    private SharedVersions() {
    }

    static History history() {
        return History.builder()
                .txn(1).session(1).lockingRead("r1", 0).update("r1", 0).commit()
                .txn(2).session(2).read("r1", 0).read("r1", 0, 1).lockingRead("r1", 0, 1).update("r1", 0, 1).commit()
                .txn(3).session(3).read("r1", 0, 3).commit() // T3 never wrote r1 after T0: an incompatible order
                .build();
    }

    /** T2's versions of r1 share one array; T3's incompatible read does not. */
    static void assertShared(History back) {
        List<Op> ops = back.transactions().get(1).ops();
        long[] shared = ((Read) ops.get(0)).wList().raw();
        for (Op op : ops) {
            WList w = op instanceof Read r ? r.wList() : ((Write) op).wList();
            assertSame(shared, w.raw(), "every version of r1 is a view of one array: " + w);
        }
        assertNotSame(shared, ((Read) back.transactions().get(2).ops().get(0)).wList().raw());
    }
}
