package txfuzz.oracle.wss;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;
import txfuzz.dbms.Deviation;

/**
 * The one place a {@link Deviation}, the name a profile uses, is bound to its {@link Mechanism}. A mechanism keeps what its
 * last simulation found (the serial order, where a scan waited), so each case's explainer makes its own.
 */
final class Mechanisms {
    private static final Map<Deviation, Supplier<Mechanism>> BY_NAME = new EnumMap<>(Deviation.class);

    static {
        BY_NAME.put(Deviation.STATEMENT_VISIBILITY, StatementVisibility::new);
        BY_NAME.put(Deviation.DIRTY_VISIBILITY, DirtyVisibility::new);
        BY_NAME.put(Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK, StatementSnapshotWithRecheck::new);
        BY_NAME.put(Deviation.LOCKING_SCAN_IN_KEY_ORDER, LockingScanInKeyOrder::new);
        BY_NAME.put(Deviation.LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT, LockingScanWithOneSubquerySnapshot::new);
        BY_NAME.put(Deviation.LOCKING_SCAN_WITH_LOCKS_KEPT_ON_UNMATCHED_ROWS, LockingScanWithLocksKeptOnUnmatchedRows::new);
        BY_NAME.put(Deviation.DIRTY_SCAN_IN_KEY_ORDER, DirtyScanInKeyOrder::new);
        BY_NAME.put(Deviation.TRANSACTION_SNAPSHOT, TransactionSnapshot::new);
        BY_NAME.put(Deviation.TABLE_SNAPSHOTS, TableSnapshots::new);
        BY_NAME.put(Deviation.DIRTY_READS_BESIDE_SEMI_CONSISTENT_UPDATES, DirtyReadsBesideSemiConsistentUpdates::new);
        BY_NAME.put(Deviation.SOME_SERIAL_ORDER, SomeSerialOrder::new);
        for (Deviation d : Deviation.values()) {
            if (!BY_NAME.containsKey(d) || BY_NAME.get(d).get().name() != d) {
                throw new ExceptionInInitializerError("no mechanism for " + d);
            }
        }
    }

    private Mechanisms() {
    }

    /** The name a violation carries when {@code name}'s mechanism explained it ({@code statement-snapshot-with-recheck}). */
    static String label(Deviation name) {
        return name.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** A new instance of the mechanism {@code name} stands for. */
    static Mechanism of(Deviation name) {
        return BY_NAME.get(name).get();
    }
}
