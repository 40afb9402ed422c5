package txfuzz.dbms;

/**
 * Why a behaviour (a {@link Deviation}, or an anomaly in one shape of cycle) may explain a violation at one level of one
 * engine, and where that is written: the entries of the promise catalogue that are not the standard level itself. A
 * violation explained by a {@link Documented} basis is documented; by a {@link Measured} one, not promised (the level's
 * promises hold, the run breaks only txfuzz's stricter expectation); a behaviour with no basis explains a violation only
 * where the standard promise the engine claims permits everything it does (the promise its mechanism keeps, txfuzz.oracle.wss.Mechanism#keeps), and then it is not
 * promised either.
 */
public sealed interface Basis {
    /** What a report says of it: the manual's sentence and page, or what was measured, where it is pinned and why the promise holds. */
    String cite();

    /**
     * The manual describes the behaviour.
     *
     * @param quote      the manual's own sentence, verbatim
     * @param link       the page it is on
     * @param readPoints for statement visibility, the read points of a statement that waited the sentence describes
     *                   ({@link Deviation.ReadPoint}); an explanation at another read point is not documented by it
     */
    record Documented(String quote, String link, java.util.Set<Deviation.ReadPoint> readPoints) implements Basis {
        public Documented {
            readPoints = java.util.Set.copyOf(readPoints);
        }

        /** The sentence describes the behaviour whatever a waiting statement read. */
        public Documented(String quote, String link) {
            this(quote, link, java.util.EnumSet.allOf(Deviation.ReadPoint.class));
        }

        @Override
        public String cite() {
            return "\"" + quote + "\" (" + link + ")";
        }
    }

    /**
     * txfuzz measured the behaviour; the manual does not describe it, but every promise the manual makes at the level holds
     * under it.
     *
     * @param behaviour what was measured
     * @param pinnedBy  the tests that pin it on the engine
     * @param promiseHolds why the level's promises (its manual's words) hold under it
     */
    record Measured(String behaviour, String pinnedBy, String promiseHolds) implements Basis {
        @Override
        public String cite() {
            return behaviour + " (measured, not in the manual; pinned by " + pinnedBy + "); " + promiseHolds;
        }
    }
}
