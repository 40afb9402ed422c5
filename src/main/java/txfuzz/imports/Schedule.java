package txfuzz.imports;

import java.util.List;
import txfuzz.model.CaseSource;
import txfuzz.model.IsolationLevel;

/**
 * One schedule read from a file, before it becomes a case: the setup, and the statements each session
 * submits, in the order the file submits them.
 *
 * @param source        the file, its format and which of its schedules this is
 * @param setup         setup statements, run once before the sessions start
 * @param submissions   what the sessions submit, in order
 * @param declared      the level the file declares for every transaction that names none itself (a plain schedule's
 *                      {@code -- isolation:} line), or null
 * @param engineDefault the level a transaction runs at when neither the file nor {@code --isolation} names one (the
 *                      engine's default the format's tests run with), or null when the format has no engine
 * @param dbms          the DBMS the file says it was written for (a plain schedule's {@code -- dbms:} line), or null
 * @param mode          that DBMS's concurrency mode the file names (a plain schedule's {@code -- mode:} line), or null: the default
 */
record Schedule(CaseSource source, List<String> setup, List<Submission> submissions, IsolationLevel declared, IsolationLevel engineDefault,
                String dbms, String mode) {
    Schedule {
        setup = List.copyOf(setup);
        submissions = List.copyOf(submissions);
    }

    /** A schedule whose file names neither a DBMS nor a mode. */
    Schedule(CaseSource source, List<String> setup, List<Submission> submissions, IsolationLevel declared, IsolationLevel engineDefault) {
        this(source, setup, submissions, declared, engineDefault, null, null);
    }

    /**
     * What one session submits at once: an isolation tester's step (one or more statements sent together) or one
     * statement of a mysqltest file or plain schedule.
     *
     * @param session          the session's name in the file
     * @param statements       the statements, in order
     * @param implicitTransaction whether several statements sent together outside a transaction run as one transaction
     *                         (PostgreSQL's simple query protocol, which the isolation tester uses)
     */
    record Submission(String session, List<String> statements, boolean implicitTransaction) {
        Submission {
            statements = List.copyOf(statements);
        }
    }
}
