package txfuzz.reduce;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.model.Stmt;
import txfuzz.model.Tracking;

/**
 * What expression simplification must leave alone in an instrumented case (the isolation
 * oracle's row tracking): the (rid, wl) items a tracked SELECT leads with, a write's tag, a
 * predicate read's or write scan's WHERE (its tracking names it), companion statements, and the rid/wl values of
 * the setup's rows, and something besides its tracking in every tracked read and write. Changing them
 * does not simplify the case; it breaks what the history recorder reads, or leaves a read with no
 * plain form ({@link TrackingStripper}).
 */
final class TrackedText {
    /** A tracked SELECT's leading items: "x0.rid, x0.wl" or, for compound queries, "'t0', x0.rid, x0.wl". */
    private static final Pattern PAIR = Pattern.compile("(?:'\\w+', )?\\w+\\.rid, \\w+\\.wl|SELECT rid, wl");
    /** An initial row's tracking values: ..., '<rid>', ',0'). */
    private static final Pattern INITIAL = Pattern.compile("'[^']*', ',0'");

    private TrackedText() {
    }

    /** Whether {@code variant} of {@code s}'s SQL keeps everything the recorder relies on. */
    static boolean keeps(Stmt s, String variant) {
        Tracking t = s.tracking();
        if (t == null) {
            return true;
        }
        // a predicate (a read's, or the WHERE a write scans) names the statement's WHERE: changing one without the other would
        // give two conditions one name in the history
        if (t.role() == Tracking.Role.POST_READ || t.role() == Tracking.Role.VERSION_SET_READ || t.predicate() != null) {
            return false;
        }
        if (t.plain() != null) {
            return false; // the program's statement is recorded beside it (an aggregate): both must stay one read
        }
        if (t.deletes() && s.sql().contains(" RETURNING ") != variant.contains(" RETURNING ")) {
            return false; // a tracked DELETE's RETURNING is how the recorder sees what it deleted
        }
        if (t.tag() != null && count(s.sql(), "," + t.tag() + "'") != count(variant, "," + t.tag() + "'")) {
            return false;
        }
        if (t.tag() != null && count(s.sql(), "'/" + t.tag() + "'") != count(variant, "'/" + t.tag() + "'")) {
            return false; // an INSERT ... SELECT's rids are the source rid and '/tag': without it they repeat the source's
        }
        for (String rid : t.rids()) {
            if (count(s.sql(), "'" + rid + "'") != count(variant, "'" + rid + "'")) {
                return false;
            }
        }
        if ((t.role() == Tracking.Role.READ || t.role() == Tracking.Role.WRITE) && TrackingStripper.hasPlainForm(s)
                && !TrackingStripper.hasPlainForm(new Stmt(s.kind(), variant, s.needsTransaction(), t))) {
            return false; // the statement would keep only its tracking: the finding's plain program would lose it
        }
        return !t.role().reads() || matches(PAIR, s.sql()).equals(matches(PAIR, variant));
    }

    /** Whether a variant of a setup statement keeps its rows' rid/wl values. */
    static boolean keepsSetup(String original, String variant) {
        return matches(INITIAL, original).equals(matches(INITIAL, variant));
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static List<String> matches(Pattern p, String text) {
        List<String> out = new ArrayList<>();
        Matcher m = p.matcher(text);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }
}
