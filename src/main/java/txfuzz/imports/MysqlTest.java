package txfuzz.imports;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.model.CaseSource;
import txfuzz.model.IsolationLevel;

/**
 * A MariaDB/MySQL mysqltest file read as schedules: the part of the language that expresses one —
 * {@code connect}, {@code connection}, {@code disconnect}, {@code send} and {@code reap}, {@code error} and SQL
 * statements. A file holds several tests one after the other on the same connections; a schedule ends where,
 * with no transaction open and no statement sent and not reaped, the default connection changes the schema
 * (CREATE, DROP, TRUNCATE, ALTER). Schema changes and the rows inserted before a schedule starts are its setup;
 * session settings a connection made earlier stay with it into later schedules. Commands that wait
 * ({@code let $wait_condition}, {@code --source include/wait_condition.inc}) are left out, because txfuzz asks the
 * engine who waits; echo, result formatting and test-suite requirements likewise. Anything else (control flow,
 * {@code eval}, other includes) makes its schedule unexpressible.
 */
final class MysqlTest {
    private MysqlTest() {
    }

    /** What a file gave: its schedules, the schedules it could not express, and the commands left out (with why). */
    record Parts(List<Schedule> schedules, List<Importer.Skipped> skipped, List<String> leftOut) {
    }

    private static final String DEFAULT = "default";
    private static final Set<String> PRESENTATION = Set.of("echo", "sorted_result", "replace_result", "replace_column", "replace_regex",
            "query_vertical", "horizontal_results", "vertical_results", "result_format", "character_set", "exec_in_background");
    private static final Set<String> FLOW = Set.of("if", "while", "eval", "delimiter", "query", "send_eval", "dec", "inc", "end", "}", "{",
            "exit", "die", "skip", "perl", "exec", "system", "write_file", "append_file", "remove_file", "let", "sleep", "real_sleep",
            "change_user", "reset_connection", "shutdown_server", "restart_server", "query_get_value", "send_shutdown", "copy_file");
    private static final Pattern SCHEMA_CHANGE = Pattern.compile("^(CREATE|DROP|TRUNCATE|ALTER|RENAME)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern TRUNCATE = Pattern.compile("^TRUNCATE\\s+(?:TABLE\\s+)?`?(\\w+)`?\\s*$", Pattern.CASE_INSENSITIVE);
    private static final Pattern SETUP_ROWS = Pattern.compile("^(INSERT|REPLACE)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern MDEV = Pattern.compile("\\b(MDEV-\\d+|Bug\\s*#\\d+)", Pattern.CASE_INSENSITIVE);

    /** One mysqltest command or statement, with the line it starts on. */
    private record Command(String word, String args, int line, boolean dashed) {
    }

    static Parts read(String text, String fileName, IsolationLevel engineDefault) {
        return new Reader(fileName, engineDefault).read(commands(text));
    }

    /** The file as commands: {@code --cmd args} lines, and {@code ;}-terminated statements or commands. */
    private static List<Command> commands(String text) {
        List<Command> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        StringBuilder pending = new StringBuilder();
        int pendingLine = 0;
        for (int i = 0; i < lines.length; i++) {
            String raw = lines[i];
            String l = raw.strip();
            if (pending.length() == 0) {
                if (l.isEmpty() || l.startsWith("#")) {
                    continue;
                }
                if (l.startsWith("--")) {
                    String body = l.substring(2).strip();
                    String word = body.split("[\\s(]", 2)[0].toLowerCase(Locale.ROOT);
                    out.add(new Command(word, body.substring(Math.min(body.length(), word.length())).strip(), i + 1, true));
                    continue;
                }
                pendingLine = i + 1;
            }
            pending.append(raw).append('\n');
            List<String> parts = SqlText.split(pending.toString());
            boolean terminated = endsWithDelimiter(pending.toString());
            if (terminated) {
                for (String p : parts) {
                    out.add(statementOrCommand(p, pendingLine));
                }
                pending.setLength(0);
            }
        }
        if (pending.length() > 0 && !SqlText.withoutComments(pending.toString()).isBlank()) {
            out.add(statementOrCommand(pending.toString().strip(), pendingLine));
        }
        return out;
    }

    /** Whether the text's last statement is ended by a semicolon outside quotes and comments. */
    private static boolean endsWithDelimiter(String text) {
        String t = text.strip();
        if (!t.endsWith(";")) {
            return false;
        }
        List<String> withExtra = SqlText.split(t + " x");
        return withExtra.size() > 0 && withExtra.get(withExtra.size() - 1).equals("x");
    }

    private static final Set<String> COMMANDS = Set.of("connect", "connection", "disconnect", "send", "reap", "error", "source", "echo", "let",
            "eval", "if", "while", "sleep", "real_sleep", "disable_query_log", "enable_query_log", "disable_result_log", "enable_result_log",
            "disable_warnings", "enable_warnings", "sorted_result", "replace_result", "query_vertical", "delimiter", "dec", "inc", "exit",
            "die", "skip", "perl", "exec", "system", "disable_ps_protocol", "enable_ps_protocol", "disable_ps2_protocol", "enable_ps2_protocol",
            "disable_abort_on_error", "enable_abort_on_error", "send_eval", "query", "change_user", "vertical_results", "horizontal_results",
            "disable_view_protocol", "enable_view_protocol", "disable_cursor_protocol", "enable_cursor_protocol", "disable_info", "enable_info");

    private static Command statementOrCommand(String text, int line) {
        String s = text.strip();
        String word = s.split("[\\s(;]", 2)[0].toLowerCase(Locale.ROOT);
        if (COMMANDS.contains(word) || word.startsWith("disable_") || word.startsWith("enable_")) {
            return new Command(word, s.substring(Math.min(s.length(), word.length())).strip(), line, false);
        }
        return new Command("", s, line, false);
    }

    private static final class Reader {
        final String fileName;
        final IsolationLevel engineDefault;
        final List<Schedule> schedules = new ArrayList<>();
        final List<Importer.Skipped> skipped = new ArrayList<>();
        final Map<String, Integer> leftOut = new LinkedHashMap<>();
        final List<String> setup = new ArrayList<>();
        final Map<String, List<String>> sessionSettings = new HashMap<>();
        final Map<String, Boolean> inTransaction = new HashMap<>();
        final Map<String, Boolean> sentNotReaped = new HashMap<>();
        List<Schedule.Submission> current = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final java.util.Set<String> used = new java.util.HashSet<>();
        final java.util.Set<String> connected = new java.util.HashSet<>();
        String connection = DEFAULT;
        boolean sendNext;
        int startLine;
        String title = "";
        String currentTitle = "";
        boolean titleSet;

        Reader(String fileName, IsolationLevel engineDefault) {
            this.fileName = fileName;
            this.engineDefault = engineDefault;
        }

        Parts read(List<Command> commands) {
            for (Command c : commands) {
                command(c);
            }
            finish();
            List<String> notes = new ArrayList<>();
            leftOut.forEach((k, v) -> notes.add(k + (v > 1 ? " (" + v + " times)" : "")));
            return new Parts(schedules, skipped, notes);
        }

        private void command(Command c) {
            switch (c.word()) {
                case "" -> sql(c.args(), c.line());
                case "connect" -> {
                    String name = c.args().replaceAll("^\\(", "").split("[,)\\s]", 2)[0].strip();
                    connection = name;
                    inTransaction.put(name, false);
                    connected.add(name);
                }
                case "connection" -> connection = c.args().replace(";", "").strip();
                case "disconnect" -> {
                    String name = c.args().replace(";", "").strip();
                    if (Boolean.TRUE.equals(inTransaction.get(name)) && active()) {
                        submit(name, "ROLLBACK", c.line()); // disconnecting rolls back what is open
                    }
                    inTransaction.put(name, false);
                    sessionSettings.remove(name);
                    connected.remove(name);
                }
                case "send" -> {
                    String stmt = c.args().replaceAll(";\\s*$", "").strip();
                    if (stmt.isEmpty()) {
                        sendNext = true;
                    } else {
                        sentNotReaped.put(connection, true);
                        sql(stmt, c.line());
                    }
                }
                case "reap" -> sentNotReaped.put(connection, false);
                case "error" -> leave("--error (an expected error: txfuzz records what the engine does and judges that)");
                case "echo" -> {
                    Matcher m = MDEV.matcher(c.args());
                    if (m.find() && !titleSet) { // a test's first bug number names it
                        title = m.group(1);
                        titleSet = true;
                    }
                    leave("echo");
                }
                case "source" -> {
                    String what = c.args().replace(";", "").strip();
                    if (what.matches("include/(have_|not_|count_sessions|wait_until_count_sessions|no_valgrind).*")) {
                        leave("--source " + what + " (a test-suite requirement or check)");
                    } else if (what.matches("include/wait_condition.*")) {
                        leave("--source " + what + " (a wait for a session to block: txfuzz asks the engine who waits)");
                    } else {
                        problem("--source " + what + " (an include this cannot follow)", c.line());
                    }
                }
                case "let" -> {
                    if (c.args().startsWith("$wait_condition") || c.args().startsWith("$wait_timeout")) {
                        leave("let $wait_condition (a wait for a session to block: txfuzz asks the engine who waits)");
                    } else {
                        problem("let (a mysqltest variable)", c.line());
                    }
                }
                default -> {
                    if (c.word().startsWith("disable_") || c.word().startsWith("enable_") || PRESENTATION.contains(c.word())) {
                        leave("--" + c.word() + " (how the result is recorded or which protocol runs it)");
                    } else if (FLOW.contains(c.word())) {
                        problem(c.word() + " (mysqltest control flow or a variable)", c.line());
                    } else {
                        problem("--" + c.word() + " (a mysqltest command this does not read)", c.line());
                    }
                }
            }
        }

        private void leave(String what) {
            leftOut.merge(what, 1, Integer::sum);
        }

        private void problem(String what, int line) {
            problems.add(what + " at line " + line);
        }

        private boolean active() {
            return !current.isEmpty();
        }

        private boolean quiet() {
            return inTransaction.values().stream().noneMatch(Boolean::booleanValue)
                    && sentNotReaped.values().stream().noneMatch(Boolean::booleanValue);
        }

        private void sql(String stmt, int line) {
            if (sendNext) {
                sendNext = false;
                sentNotReaped.put(connection, true);
            }
            String flat = SqlText.withoutComments(stmt);
            List<String> w = SqlText.words(flat, 2);
            String first = w.isEmpty() ? "" : w.get(0);
            boolean schemaChange = SCHEMA_CHANGE.matcher(flat).find();
            if (connection.equals(DEFAULT) && quiet() && (schemaChange || (!active() && SETUP_ROWS.matcher(flat).find()))) {
                if (active() && schemaChange) {
                    finish();
                }
                if (!active()) {
                    setupStatement(stmt);
                    return;
                }
            }
            if (active() && connection.equals(DEFAULT) && quiet() && connected.isEmpty() && first.equals("SELECT")) {
                // every other session has gone: a read of the final contents, which txfuzz reads itself
                leave("SELECT on the default connection after every other connection disconnected (the final contents: txfuzz reads them itself)");
                return;
            }
            if (first.equals("BEGIN") || first.equals("START")) {
                inTransaction.put(connection, true);
            } else if (first.equals("COMMIT") || (first.equals("ROLLBACK") && !(w.size() > 1 && w.get(1).equals("TO")))) {
                inTransaction.put(connection, false);
            }
            if (first.equals("SET") && !(w.size() > 1 && w.get(1).equals("TRANSACTION"))) {
                sessionSettings.computeIfAbsent(connection, k -> new ArrayList<>()).add(stmt);
                if (!active()) {
                    return; // it reaches the schedule with the connection's first statement there
                }
            }
            submit(connection, stmt, line);
        }

        private void submit(String conn, String stmt, int line) {
            if (!active()) {
                startLine = line;
                currentTitle = title;
            }
            if (used.add(conn)) {
                for (String setting : sessionSettings.getOrDefault(conn, List.of())) {
                    if (!setting.equals(stmt)) {
                        current.add(new Schedule.Submission(conn, List.of(setting), false));
                    }
                }
            }
            current.add(new Schedule.Submission(conn, List.of(stmt), false));
        }

        private void setupStatement(String stmt) {
            Matcher truncate = TRUNCATE.matcher(SqlText.withoutComments(stmt));
            if (truncate.find()) { // the rows inserted before are gone: the setup need not insert them
                Pattern into = Pattern.compile("^(INSERT|REPLACE)\\s+(INTO\\s+)?`?" + Pattern.quote(truncate.group(1)) + "`?\\b",
                        Pattern.CASE_INSENSITIVE);
                if (setup.removeIf(s -> into.matcher(SqlText.withoutComments(s)).find())) {
                    return;
                }
            }
            setup.add(stmt);
            try {
                ScheduleCase.tables(setup);
            } catch (Unexpressible e) {
                if (e.getMessage().contains("no table")) {
                    setup.clear(); // every table is dropped: the next test starts from nothing
                }
            }
        }

        private void finish() {
            if (!active()) {
                return;
            }
            String name = (currentTitle.isEmpty() ? "" : currentTitle + ", ") + "line " + startLine;
            CaseSource source = new CaseSource(CaseSource.Format.MYSQLTEST, fileName, name);
            if (!problems.isEmpty()) {
                skipped.add(new Importer.Skipped(name, String.join("; ", problems)));
            } else {
                schedules.add(new Schedule(source, setup, current, null, engineDefault));
            }
            problems.clear();
            titleSet = false;
            current = new ArrayList<>();
            used.clear();
        }
    }
}
