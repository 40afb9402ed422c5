package txfuzz.reduce;

import txfuzz.model.TestCase;

/** What {@link TrackingStripper} made of an instrumented case: its plain program, or why there is none. */
public sealed interface Stripped permits Stripped.Plain, Stripped.CannotStrip {

    /**
     * The program without row tracking; its data statements line up one-to-one with the instrumented case's groups.
     *
     * @param origin each statement of {@code plain} → the instrumented statement it stands for (a group's program statement,
     *               BEGIN/COMMIT/ROLLBACK themselves)
     */
    record Plain(TestCase plain, java.util.Map<txfuzz.model.StmtRef, txfuzz.model.StmtRef> origin) implements Stripped {
        public Plain {
            origin = java.util.Map.copyOf(origin);
        }
    }

    /** A statement whose tracking could not be removed without guessing; {@code why} names it. */
    record CannotStrip(String why) implements Stripped {
        public String text() {
            return "cannot strip: " + why;
        }
    }
}
