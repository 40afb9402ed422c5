package txfuzz.report;

import txfuzz.dbms.Subject;
import txfuzz.dbms.Target;

/** The replay line's --subject for a real target opened as {@code spec}, for tests outside report/. */
public final class BugReportAccess {
    private BugReportAccess() {
    }

    public static String subjectOption(String spec) {
        try (Target t = Subject.parse(spec).open(null)) {
            return BugReport.subjectOption(t);
        }
    }
}
