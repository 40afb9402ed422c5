package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.List;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.SetupFailedException;

/**
 * One way an engine's writes may depart from the commit-order serial schedule, as one object: its words, its simulation on
 * the engine itself, the standard promise every run it explains still keeps, and the test that proves it explains no more
 * than it says. Profiles name it by its {@link Deviation}; {@link Mechanisms} maps the name to the class. The simulation
 * machinery every mechanism shares (views, effects, the initial state, row identities) is the {@link DeviationExplainer}
 * it is given.
 */
abstract class Mechanism {
    private final Deviation name;
    private final Promise keeps;
    private final String negativeControl;

    /**
     * @param name            the name the dbms layer's profiles use for it
     * @param keeps           the strongest standard promise every run it explains still keeps (with the level's preconditions,
     *                        e.g. writers waiting for locked rows): at a level whose claimed promise this implies, a violation
     *                        it explains breaks only txfuzz's stricter expectation, not a promise ({@link txfuzz.dbms.Basis})
     * @param negativeControl the tests (class names, comma-separated) in which a fault-injecting wrapper around a real engine
     *                        makes a bug of the shape it explains, and the bug stays a bug candidate
     */
    Mechanism(Deviation name, Promise keeps, String negativeControl) {
        this.name = name;
        this.keeps = keeps;
        this.negativeControl = negativeControl;
    }

    final Deviation name() {
        return name;
    }

    final Promise keeps() {
        return keeps;
    }

    final String negativeControl() {
        return negativeControl;
    }

    /** The read points of a statement that waited that this mechanism tells apart; {@code SUBMITTED} alone where it has none. */
    List<Deviation.ReadPoint> readPoints() {
        return List.of(Deviation.ReadPoint.SUBMITTED);
    }

    /**
     * Whether the mechanism, at {@code readPoint}, reproduces the run's final state on the engine; the writes' simulated
     * update counts are left in {@code sim} (through {@link DeviationExplainer#accepted}).
     */
    abstract boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException;

    /** What the mechanism says happened, in words, after a simulation at {@code readPoint} reproduced the run. */
    abstract String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint);
}
