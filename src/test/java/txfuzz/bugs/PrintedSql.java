package txfuzz.bugs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.dbms.Database;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Target;

/**
 * A reproducer exactly as docs/bugs.md prints it — the fenced block that opens with
 * {@code ```sql NAME} — read from the page itself, so the page and the tests cannot drift apart, and
 * run with plain JDBC: each statement's text goes to {@link Statement#execute}, as a user's client
 * sends it. The page's conventions (its "Reading the reproducers"):
 * <ul>
 * <li>a line {@code -- T1} (anything may follow the name) makes the next statements session T1's;
 * statements before the first such line run in one setup session, in autocommit;</li>
 * <li>{@code -- both sessions: A; B;} is run first in every session T1, T2, … when it is opened;</li>
 * <li>every other comment is commentary (what the statement returns), never sent;</li>
 * <li>a statement the engine makes wait (its lock probe says so twice) is left waiting and the next
 * line runs; when the block comes back to that session, its statement is collected once the engine
 * no longer says it waits, and while it does, that session's next lines wait their turn behind it
 * and the other sessions' lines go on (as a person at the client would; no step waits a fixed time);</li>
 * <li>a block for Derby is written for its client, ij ({@link #inIj}): there {@code AUTOCOMMIT OFF},
 * {@code COMMIT} and {@code ROLLBACK} are ij commands, which ij runs as the JDBC calls
 * {@link Connection#setAutoCommit}, {@link Connection#commit} and {@link Connection#rollback}.</li>
 * </ul>
 */
final class PrintedSql {
    private static final Path PAGE = Path.of("docs", "bugs.md");
    private static final Pattern SESSION = Pattern.compile("--\\s*(T\\d+)\\b.*");
    private static final String BOTH = "-- both sessions:";
    static final String SETUP = "setup";
    /** How long the engine may go on reporting a wait after the last step that could release it (a real hang's bound). */
    private static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** One statement of the block and the session that runs it. */
    record Step(String session, String sql) {
    }

    /** What one statement did: rows (a query), an update count, or an error; and whether the engine made it wait. */
    record Outcome(Step step, List<List<String>> rows, int updateCount, SQLException error, boolean waited) {
        boolean failed() {
            return error != null;
        }

        @Override
        public String toString() {
            String what = error != null ? "error " + error.getSQLState() + "/" + error.getErrorCode() + " " + firstLine(error.getMessage())
                    : rows != null ? rows.toString() : updateCount + " row(s)";
            return step.session + (waited ? " (waited)" : "") + ": " + step.sql + " -> " + what;
        }
    }

    /** A run of the block: one outcome per step, in the block's order. */
    record Run(String version, List<Outcome> outcomes) {
        /** The outcome of the {@code n}-th step (from 1) whose SQL is {@code sql}, as printed without its {@code ;}. */
        Outcome of(String sql, int n) {
            int seen = 0;
            for (Outcome o : outcomes) {
                if (o.step().sql().equals(sql) && ++seen == n) {
                    return o;
                }
            }
            throw new AssertionError("no statement #" + n + " '" + sql + "' in " + this);
        }

        Outcome of(String sql) {
            return of(sql, 1);
        }

        /** The outcome of the last step. */
        Outcome last() {
            return outcomes.get(outcomes.size() - 1);
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder(version);
            outcomes.forEach(o -> b.append("\n  ").append(o));
            return b.toString();
        }
    }

    private final String name;
    private final List<String> bothSessions;
    private final List<Step> steps;
    private final boolean ij;

    private PrintedSql(String name, List<String> bothSessions, List<Step> steps, boolean ij) {
        this.name = name;
        this.bothSessions = bothSessions;
        this.steps = steps;
        this.ij = ij;
    }

    /** The same block, read as Derby's ij reads it. */
    PrintedSql inIj() {
        return new PrintedSql(name, bothSessions, steps, true);
    }

    /**
     * The same block with other statements in place of its {@code -- both sessions:} line, e.g. another isolation
     * level: how a test checks what the page says of levels it does not print a block for.
     */
    PrintedSql withBothSessions(List<String> statements) {
        return new PrintedSql(name, List.copyOf(statements), steps, ij);
    }

    /** The block {@code ```sql NAME} of docs/bugs.md; exactly one must exist. */
    static PrintedSql of(String name) {
        return of(PAGE, name);
    }

    /** The block {@code ```sql NAME} of the markdown file {@code page}. */
    static PrintedSql of(Path page, String name) {
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + page.toAbsolutePath(), e);
        }
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("```sql " + name)) {
                if (start >= 0) {
                    throw new AssertionError("two blocks ```sql " + name + " in " + page);
                }
                start = i + 1;
            }
        }
        if (start < 0) {
            throw new AssertionError("no block ```sql " + name + " in " + page);
        }
        List<String> block = new ArrayList<>();
        for (int i = start; !lines.get(i).strip().equals("```"); i++) {
            block.add(lines.get(i));
        }
        return parse(name, block);
    }

    static PrintedSql parse(String name, List<String> block) {
        List<String> both = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        String session = SETUP;
        StringBuilder pending = new StringBuilder();
        for (String raw : block) {
            String line = raw.strip();
            if (line.startsWith(BOTH)) {
                both.addAll(statements(line.substring(BOTH.length())));
                continue;
            }
            Matcher m = SESSION.matcher(line);
            if (m.matches()) {
                if (!pending.isEmpty()) {
                    throw new AssertionError(name + ": statement without ';' before " + line);
                }
                session = m.group(1);
                continue;
            }
            String code = withoutComment(line);
            if (code.isEmpty()) {
                continue;
            }
            pending.append(pending.isEmpty() ? "" : " ").append(code);
            if (code.endsWith(";")) {
                steps.add(new Step(session, pending.substring(0, pending.length() - 1).strip()));
                pending.setLength(0);
            }
        }
        if (!pending.isEmpty()) {
            throw new AssertionError(name + ": last statement has no ';': " + pending);
        }
        return new PrintedSql(name, List.copyOf(both), List.copyOf(steps), false);
    }

    private static List<String> statements(String text) {
        List<String> out = new ArrayList<>();
        for (String s : text.split(";")) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        return out;
    }

    /** The line without a trailing {@code --} comment (none of the reproducers has {@code --} inside a literal). */
    private static String withoutComment(String line) {
        int dash = line.indexOf("--");
        return (dash < 0 ? line : line.substring(0, dash)).strip();
    }

    List<Step> steps() {
        return steps;
    }

    List<String> bothSessions() {
        return bothSessions;
    }

    /** Runs the block on a fresh database of {@code target}. */
    Run run(Target target) throws Exception {
        try (Database db = target.freshDatabase()) {
            return run(target, db);
        }
    }

    /** Runs the block on {@code db}, which must be empty, and leaves it open. */
    Run run(Target target, Database db) throws Exception {
        Map<String, Session> sessions = new LinkedHashMap<>();
        Optional<LockProbe> probe = Optional.empty();
        Outcome[] outcomes = new Outcome[steps.size()];
        try {
            probe = db.lockProbe();
            LockProbe lockProbe = probe.orElse(null);
            for (int i = 0; i < steps.size(); i++) {
                Step step = steps.get(i);
                Session s = sessions.get(step.session());
                if (s == null) {
                    s = open(target, db, step.session());
                    sessions.put(step.session(), s);
                }
                if (!s.backlog.isEmpty() || (s.inFlight != null && stillWaits(s, lockProbe))) {
                    // the session's statement still waits for a lock (a later step of another session
                    // releases it): like a person at the client, go on with the other sessions
                    s.backlog.add(i);
                    continue;
                }
                s.collect(outcomes);
                start(s, i, lockProbe);
            }
            // Right after the step that releases a lock, the probe may still report the waiter for a moment (H2 clears
            // BLOCKER_ID only when the waiting thread wakes): ask again; only a wait that outlives every release is stuck.
            long stuckSince = 0;
            while (sessions.values().stream().anyMatch(s -> s.inFlight != null || !s.backlog.isEmpty())) {
                boolean progressed = false;
                for (Session s : sessions.values()) {
                    if (s.inFlight != null && !stillWaits(s, lockProbe)) {
                        s.collect(outcomes);
                        progressed = true;
                    }
                    if (s.inFlight == null && !s.backlog.isEmpty()) {
                        start(s, s.backlog.poll(), lockProbe);
                        progressed = true;
                    }
                }
                if (progressed) {
                    stuckSince = 0;
                } else if (stuckSince == 0) {
                    stuckSince = System.nanoTime();
                } else if (System.nanoTime() - stuckSince > STUCK_NANOS) {
                    throw new AssertionError(name + ": every session left waits for a lock, with no step left to release it");
                }
            }
            return new Run(target.version(), List.of(outcomes));
        } finally {
            sessions.values().forEach(Session::close);
            probe.ifPresent(LockProbe::close);
        }
    }

    private Session open(Target target, Database db, String session) throws Exception {
        Session s = new Session(ij, db.connect(target.defaultIsolationLevel(), target.modes().get(0)));
        s.id = db.sessionId(s.connection);
        if (!session.equals(SETUP)) {
            for (String sql : bothSessions) {
                Outcome o = s.execute(new Step(session, sql)).get();
                if (o.failed()) {
                    throw new AssertionError(name + ": " + o, o.error());
                }
            }
        }
        return s;
    }

    /** Sends step {@code i} on {@code s} and waits until it returns or the engine says it waits for a lock. */
    private void start(Session s, int i, LockProbe probe) throws Exception {
        s.inFlight = s.execute(steps.get(i));
        s.inFlightIndex = i;
        if (waits(s, probe)) {
            s.waited = true;
        } else {
            s.inFlight.get();
            s.finished = true;
        }
    }

    /** Whether the statement in flight on {@code s}, which the engine made wait, still waits for a lock. */
    private static boolean stillWaits(Session s, LockProbe probe) throws Exception {
        return s.inFlight != null && !s.finished && waits(s, probe);
    }

    /**
     * Whether the statement in flight on {@code s} waits for a lock: the engine's probe says so twice
     * in a row while it has not returned. Without a probe (an engine that never waits) it has returned.
     */
    private static boolean waits(Session s, LockProbe probe) throws Exception {
        int sightings = 0;
        long poll = 100_000;
        while (true) {
            try {
                s.inFlight.get(poll, TimeUnit.NANOSECONDS);
                return false;
            } catch (TimeoutException notYet) {
                poll = Math.min(poll * 2, 20_000_000);
            }
            if (probe == null) {
                continue;
            }
            sightings = probe.waitsFor(s.id).isPresent() ? sightings + 1 : 0;
            if (sightings >= 2) {
                return true;
            }
        }
    }

    /**
     * Rows written as the page's comments write them, {@code "(1, 7) (7, 20)"}; {@code NULL} is SQL's
     * null; {@code ""} is no row.
     */
    static List<List<String>> rows(String printed) {
        List<List<String>> rows = new ArrayList<>();
        Matcher m = Pattern.compile("\\(([^)]*)\\)").matcher(printed);
        while (m.find()) {
            List<String> row = new ArrayList<>();
            for (String v : m.group(1).split(",")) {
                String value = v.strip();
                row.add(value.equalsIgnoreCase("NULL") ? null : value);
            }
            rows.add(row);
        }
        return rows;
    }

    /** Whether Maven version {@code v} is {@code min} or later (numeric dot-separated parts). */
    static boolean atLeast(String v, String min) {
        String[] a = v.split("\\.");
        String[] b = min.split("\\.");
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            int x = i < a.length ? Integer.parseInt(a[i]) : 0;
            int y = i < b.length ? Integer.parseInt(b[i]) : 0;
            if (x != y) {
                return x > y;
            }
        }
        return true;
    }

    private static String firstLine(String m) {
        String s = String.valueOf(m);
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** One JDBC connection and the thread that sends its statements. */
    private static final class Session implements AutoCloseable {
        final boolean ij;
        final Connection connection;
        final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "printed-sql-session");
            t.setDaemon(true);
            return t;
        });
        String id;
        Future<Outcome> inFlight;
        int inFlightIndex;
        boolean waited;
        boolean finished;
        final java.util.ArrayDeque<Integer> backlog = new java.util.ArrayDeque<>();

        Session(boolean ij, Connection connection) {
            this.ij = ij;
            this.connection = connection;
        }

        Future<Outcome> execute(Step step) {
            return thread.submit(() -> {
                try {
                    if (ij && ijCommand(step.sql())) {
                        return new Outcome(step, null, 0, null, false);
                    }
                    try (Statement st = connection.createStatement()) {
                        if (st.execute(step.sql())) {
                            return new Outcome(step, rows(st.getResultSet()), -1, null, false);
                        }
                        return new Outcome(step, null, st.getUpdateCount(), null, false);
                    }
                } catch (SQLException e) {
                    return new Outcome(step, null, -1, e, false);
                }
            });
        }

        /** Runs {@code sql} as ij does if it is one of ij's transaction commands; false if it is SQL. */
        private boolean ijCommand(String sql) throws SQLException {
            switch (sql.toUpperCase(java.util.Locale.ROOT)) {
                case "AUTOCOMMIT OFF" -> connection.setAutoCommit(false);
                case "COMMIT" -> connection.commit();
                case "ROLLBACK" -> connection.rollback();
                default -> {
                    return false;
                }
            }
            return true;
        }

        /** Waits for the statement in flight, if any, and records its outcome. */
        void collect(Outcome[] outcomes) throws InterruptedException, ExecutionException {
            if (inFlight == null) {
                return;
            }
            Outcome o = inFlight.get();
            outcomes[inFlightIndex] = new Outcome(o.step(), o.rows(), o.updateCount(), o.error(), waited);
            inFlight = null;
            waited = false;
            finished = false;
        }

        private static List<List<String>> rows(ResultSet rs) throws SQLException {
            List<List<String>> rows = new ArrayList<>();
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int c = 1; c <= md.getColumnCount(); c++) {
                    row.add(rs.getString(c));
                }
                rows.add(row);
            }
            return rows;
        }

        @Override
        public void close() {
            thread.shutdownNow();
            try {
                connection.close();
            } catch (SQLException ignored) {
                // the database is dropped next
            }
        }
    }
}
