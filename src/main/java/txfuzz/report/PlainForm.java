package txfuzz.report;

import java.util.Objects;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;

/**
 * A reduced finding's case without txfuzz's row tracking, and what replaying it in the same order
 * showed next to the tracked run the oracle judged: the same behaviour (the report then shows this
 * plain program first), a different one, or no plain form to show. Only a case with row tracking
 * (the isolation oracle's) has one.
 *
 * @param outcome what the check found
 * @param plain   the plain program (null when {@link Outcome#NOT_SHOWN})
 * @param trace   its run (null when {@link Outcome#NOT_SHOWN})
 * @param why     {@link Outcome#DIFFERENT}: the differences as the self-check words them; {@link Outcome#NOT_SHOWN}:
 *                why there is no plain form to show (a clause, no final stop); else null
 */
public record PlainForm(Outcome outcome, TestCase plain, Trace trace, String why) {
    public enum Outcome {
        /** Replayed in the same order, it behaved as the tracked case did in everything the self-check compares. */
        SAME,
        /** Replayed in the same order, it behaved differently: the tracked form is the program that shows the violation. */
        DIFFERENT,
        /** There is no plain form to compare: it could not be derived, run or lined up with the tracked case. */
        NOT_SHOWN
    }

    public PlainForm {
        Objects.requireNonNull(outcome, "outcome");
        if (outcome != Outcome.NOT_SHOWN && (plain == null || trace == null)) {
            throw new IllegalArgumentException("a compared plain form has its case and its run");
        }
    }

    public static PlainForm same(TestCase plain, Trace trace) {
        return new PlainForm(Outcome.SAME, plain, trace, null);
    }

    public static PlainForm different(TestCase plain, Trace trace, String differences) {
        return new PlainForm(Outcome.DIFFERENT, plain, trace, differences);
    }

    public static PlainForm notShown(String why) {
        return new PlainForm(Outcome.NOT_SHOWN, null, null, why);
    }

    public boolean behavesTheSame() {
        return outcome == Outcome.SAME;
    }

    /** What the check compared, in the words the report and self-check.txt use. */
    static final String COMPARED = "every statement's error, affected rows, the plain columns of the rows it read, and whether it waited;"
            + " every transaction's end; and the final contents";

    /** self-check.txt of the reduced case. */
    String selfCheckText() {
        return switch (outcome) {
            case SAME -> "The reduced case without txfuzz's row tracking (`plain.case.json`), run in the same order, behaved as the"
                    + " tracked case (`case.json`) did: " + COMPARED + ".\n";
            case DIFFERENT -> why;
            case NOT_SHOWN -> "The reduced case has no plain form to show: " + why + ".\n";
        };
    }
}
