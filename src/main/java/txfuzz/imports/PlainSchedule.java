package txfuzz.imports;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.model.CaseSource;

/**
 * A plain schedule, the form bug reports paste (docs/commands.md, "Plain schedules"): one statement per line;
 * the lines before the first {@code T<n>:} line are the setup; each {@code T<n>: SQL} line is a statement that
 * session n submits, in the order of the lines. Blank lines and lines starting with {@code #} or {@code --}
 * are comments, except the header lines {@code -- dbms: NAME} (the DBMS the schedule was written for, when
 * {@code --dbms} names none), {@code -- mode: MODE} (that DBMS's concurrency mode, e.g. HSQLDB's {@code locks}; the
 * DBMS's default mode without it) and {@code -- isolation: LEVEL}, the level of every transaction that names none
 * itself ({@code #} works in place of {@code --}, but a bug tracker's Markdown takes it for a heading); a
 * trailing semicolon is optional. A session's statements outside BEGIN … COMMIT run one by one
 * in autocommit. It is the form {@code ReproduceScript.lines} prints and {@code report/ScheduleText} writes.
 */
final class PlainSchedule {
    private PlainSchedule() {
    }

    private static final Pattern STEP = Pattern.compile("^T(\\d+)\\s*:\\s*(.*)$");
    /** A header line: its word (group 1: isolation, dbms or mode) and value (group 2). */
    private static final Pattern HEADER = Pattern.compile("^(?:#|--)\\s*(isolation|dbms|mode)\\s*:\\s*(.+)$", Pattern.CASE_INSENSITIVE);
    private static final Pattern DBMS_WORD = Pattern.compile("dbms", Pattern.CASE_INSENSITIVE);
    private static final Pattern MODE_WORD = Pattern.compile("mode", Pattern.CASE_INSENSITIVE);

    static Schedule read(String text, String fileName) throws Unexpressible {
        List<String> setup = new ArrayList<>();
        List<Schedule.Submission> subs = new ArrayList<>();
        int lineNo = 0;
        txfuzz.model.IsolationLevel declared = null;
        String dbms = null;
        String mode = null;
        for (String raw : text.split("\n", -1)) {
            lineNo++;
            String line = raw.strip();
            Matcher header = HEADER.matcher(line);
            if (header.matches()) {
                String value = header.group(2).strip();
                if (DBMS_WORD.matcher(header.group(1)).matches()) {
                    dbms = value.toLowerCase(java.util.Locale.ROOT);
                    if (!txfuzz.dbms.Targets.names().contains(dbms)) {
                        throw new Unexpressible("line " + lineNo + " names no DBMS txfuzz knows: " + value + " (" + String.join(", ", txfuzz.dbms.Targets.names()) + ")");
                    }
                } else if (MODE_WORD.matcher(header.group(1)).matches()) {
                    mode = value;
                } else {
                    declared = txfuzz.model.IsolationLevel.parse(value);
                    if (declared == null) {
                        throw new Unexpressible("line " + lineNo + " names no isolation level txfuzz knows: " + value);
                    }
                }
                continue;
            }
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("--")) {
                continue;
            }
            Matcher m = STEP.matcher(line);
            if (m.matches()) {
                List<String> statements = SqlText.split(m.group(2));
                if (statements.size() != 1) {
                    throw new Unexpressible("line " + lineNo + " holds " + statements.size() + " statements; a schedule has one per line");
                }
                subs.add(new Schedule.Submission("T" + m.group(1), statements, false));
            } else if (subs.isEmpty()) {
                setup.addAll(SqlText.split(line));
            } else {
                throw new Unexpressible("line " + lineNo + " is neither a comment nor a T<n>: statement: " + line);
            }
        }
        if (subs.isEmpty()) {
            throw new Unexpressible("no T<n>: line");
        }
        return new Schedule(new CaseSource(CaseSource.Format.SCHEDULE, fileName, "schedule"), setup, subs, declared, null, dbms, mode);
    }
}
