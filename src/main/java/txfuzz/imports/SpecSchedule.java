package txfuzz.imports;

import java.util.ArrayList;
import java.util.List;
import txfuzz.model.CaseSource;
import txfuzz.model.IsolationLevel;

/**
 * One permutation of an isolation-tester spec as a schedule, as the tester runs it: the setup blocks, every
 * session's setup (in the order the sessions are written), then the permutation's steps. A step's block is sent
 * as one query, so several statements of it outside a transaction run as one. The teardown is left out: each
 * case runs in a fresh database.
 */
final class SpecSchedule {
    private SpecSchedule() {
    }

    static Schedule of(IsolationSpec spec, List<String> permutation, String fileName, int number, IsolationLevel engineDefault) {
        List<String> setup = new ArrayList<>();
        spec.setup().forEach(block -> setup.addAll(SqlText.split(block)));
        List<Schedule.Submission> subs = new ArrayList<>();
        for (IsolationSpec.Session s : spec.sessions()) {
            if (s.setup() != null && !SqlText.split(s.setup()).isEmpty()) {
                subs.add(new Schedule.Submission(s.name(), SqlText.split(s.setup()), true));
            }
        }
        for (String step : permutation) {
            IsolationSpec.Session s = spec.sessionOf(step);
            List<String> statements = SqlText.split(s.steps().get(step));
            if (!statements.isEmpty()) {
                subs.add(new Schedule.Submission(s.name(), statements, true));
            }
        }
        String name = "permutation " + number + ": " + String.join(" ", permutation);
        return new Schedule(new CaseSource(CaseSource.Format.ISOLATION_SPEC, fileName, name), setup, subs, null, engineDefault);
    }
}
