package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.List;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.SetupFailedException;

/** {@link Deviation#DIRTY_VISIBILITY}: {@link StatementVisibility}, each statement also seeing writes not committed yet. */
final class DirtyVisibility extends Mechanism {
    DirtyVisibility() {
        // reads of uncommitted data (G1a/G1b); writes still wait for each other's locks
        super(Deviation.DIRTY_VISIBILITY, Promise.READ_UNCOMMITTED, "DirtyWriteTest, InFlightReadsTest");
    }

    @Override
    List<Deviation.ReadPoint> readPoints() {
        return List.of(Deviation.ReadPoint.values());
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        List<String> seen = inFlightSeen.getOrDefault(readPoint, List.of());
        return "dirty reads: each write also saw data other transactions had not committed yet" + StatementVisibility.waited(readPoint)
                + (seen.isEmpty() ? "" : "; a write read part of another transaction's write still in flight (waiting for a lock): "
                + String.join("; ", seen));
    }

    /** Per read point, what its last simulation's writes read of writes in flight ({@link InFlightReads}). */
    private final java.util.Map<Deviation.ReadPoint, List<String>> inFlightSeen = new java.util.EnumMap<>(Deviation.ReadPoint.class);

    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        inFlightSeen.remove(readPoint);
        // the plain simulation first, as before reads of writes in flight were modelled: what it explains stays explained
        boolean plain = StatementVisibility.simulate(sim, true, readPoint);
        if (plain || !InFlightReads.anyCandidate(sim)) {
            return plain;
        }
        boolean plainStateOnly = sim.stateOnlyExplained();
        List<String> seen = new java.util.ArrayList<>();
        boolean inFlight = StatementVisibility.simulate(sim, true, readPoint, seen);
        if (inFlight || !plainStateOnly && sim.stateOnlyExplained()) {
            inFlightSeen.put(readPoint, seen); // the explanation, full or of the state only, is this simulation's
        }
        return inFlight; // else the first state-only explanation, if there is one, stands (DeviationExplainer#accepted)
    }

}
