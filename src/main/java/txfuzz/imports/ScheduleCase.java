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
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * Turns a {@link Schedule} into a plain case. A session's statements become transactions: BEGIN … COMMIT or
 * ROLLBACK, or one autocommit statement each (several statements a session sends together outside a
 * transaction, where the format runs them as one, become one transaction). Each transaction runs on a
 * session of its own, as every txfuzz case does. The isolation level comes from the file (BEGIN ISOLATION
 * LEVEL, SET TRANSACTION, SET SESSION …) or else {@code --isolation}, else the engine default the format's
 * tests run with; where transactions run at different levels, the case's level is the one most of them run at
 * and the others carry their own ({@link Txn#isolation}). Settings a session makes ({@code SET name = value}) go with
 * its later transactions ({@link Txn#settings}). Any statement this cannot express makes the whole schedule {@link Unexpressible}: never guessed.
 */
final class ScheduleCase {
    private ScheduleCase() {
    }

    private static final Pattern LEVEL = Pattern.compile(
            "ISOLATION\\s+LEVEL\\s+(READ\\s+UNCOMMITTED|READ\\s+COMMITTED|REPEATABLE\\s+READ|SERIALIZABLE)", Pattern.CASE_INSENSITIVE);
    private static final Pattern SESSION_LEVEL = Pattern.compile(
            "^SET\\s+(SESSION\\s+CHARACTERISTICS\\s+AS\\s+TRANSACTION|SESSION\\s+TRANSACTION|@@(SESSION\\.)?TX_ISOLATION|@@(SESSION\\.)?TRANSACTION_ISOLATION"
                    + "|(SESSION\\s+)?DEFAULT_TRANSACTION_ISOLATION|(SESSION\\s+)?TX_ISOLATION|(SESSION\\s+)?TRANSACTION_ISOLATION)\\b(.*)$",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern NEXT_LEVEL = Pattern.compile("^SET\\s+TRANSACTION\\s+ISOLATION\\s+LEVEL\\s+(.*)$", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern AUTOCOMMIT = Pattern.compile("^SET\\s+(@@(SESSION\\.)?)?AUTOCOMMIT\\s*(=|TO)\\s*(\\w+)$", Pattern.CASE_INSENSITIVE);
    private static final Pattern WRITE_WORD = Pattern.compile("\\b(INSERT|UPDATE|DELETE|MERGE)\\b");
    private static final Pattern SESSION_LOCK = Pattern.compile("\\b(pg_advisory_lock|pg_advisory_unlock|pg_try_advisory_lock|pg_advisory_lock_shared"
            + "|get_lock|release_lock)\\s*\\(", Pattern.CASE_INSENSITIVE);
    private static final Pattern SYSTEM_CATALOG = Pattern.compile("\\b(pg_catalog\\.|pg_class|pg_attribute|pg_namespace|pg_proc|pg_type"
            + "|information_schema\\.|mysql\\.)", Pattern.CASE_INSENSITIVE);
    private static final Pattern CREATE_TABLE = Pattern.compile(
            "^CREATE\\s+(?:(GLOBAL\\s+|LOCAL\\s+)?(TEMP|TEMPORARY)\\s+|UNLOGGED\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?((?:\"[^\"]+\"|`[^`]+`|[\\w$]+)(?:\\.(?:\"[^\"]+\"|`[^`]+`|[\\w$]+))?)",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern DROP_TABLE = Pattern.compile("^DROP\\s+TABLE\\s+(?:IF\\s+EXISTS\\s+)?(.*?)(\\s+(CASCADE|RESTRICT))?$",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    /** The case of {@code s} for {@code dbms} ({@code engine}); {@code override} (may be null) is {@code --isolation}. */
    static TestCase toCase(Schedule s, String dbms, IsolationLevel override, txfuzz.dbms.Engine engine, long iteration) throws Unexpressible {
        Builder b = new Builder(engine, s.source().format() == txfuzz.model.CaseSource.Format.MYSQLTEST, functions(s.setup()), ownSettings(engine));
        for (Schedule.Submission sub : s.submissions()) {
            b.submit(sub);
        }
        b.endAll();
        if (b.txns.isEmpty()) {
            throw new Unexpressible("no statement runs in a session");
        }
        IsolationLevel fallback = s.declared() != null ? s.declared() : override != null ? override : s.engineDefault();
        Map<IsolationLevel, Integer> levels = new LinkedHashMap<>();
        for (TxnDraft t : b.txns) { // an autocommit statement runs at its session's level too
            if (t.level == null) {
                t.level = fallback;
            }
            if (t.level == null) {
                throw new Unexpressible("the schedule names no isolation level: give --isolation");
            }
            levels.merge(t.level, 1, Integer::sum);
        }
        // the case's level: the one most transactions run at (the fallback on a tie); the others carry their own
        IsolationLevel caseLevel = levels.entrySet().stream()
                .max(java.util.Comparator.<Map.Entry<IsolationLevel, Integer>>comparingInt(Map.Entry::getValue)
                        .thenComparing(e -> e.getKey() == fallback ? 1 : 0))
                .orElseThrow().getKey();
        List<Txn> txns = new ArrayList<>();
        for (int i = 0; i < b.txns.size(); i++) {
            TxnDraft t = b.txns.get(i);
            txns.add(new Txn(i + 1, t.statements, t.settings, t.level == caseLevel ? null : t.level));
        }
        List<Integer> order = new ArrayList<>();
        for (TxnDraft t : b.order) {
            order.add(b.txns.indexOf(t) + 1);
        }
        List<String> tables = tables(s.setup());
        return new TestCase(TestCase.FORMAT_VERSION, dbms, 0, iteration, caseLevel, mode(s, dbms, engine, b.beginModes()), null, tables, s.setup(), txns,
                order).withSource(s.source());
    }

    /**
     * The case's mode: the one the file names, which is a mode of the DBMS the file names; the engine's first (default) mode,
     * by its own name, when it names none (so judge-suite, which runs a case in its target's modes, runs it: HSQLDB's is mvcc).
     * A mode named for another DBMS than the case's ({@code --dbms}) means nothing there: not guessed.
     */
    static String mode(Schedule s, String dbms, txfuzz.dbms.Engine engine, Set<String> beginModes) throws Unexpressible {
        if (beginModes.size() > 1) { // SQLite's BEGIN DEFERRED and BEGIN IMMEDIATE in one schedule: a case runs one mode
            throw new Unexpressible("its transactions begin in different modes (" + String.join(", ", new java.util.TreeSet<>(beginModes))
                    + "), and a case runs all of them in one");
        }
        if (!beginModes.isEmpty()) {
            String byBegin = beginModes.iterator().next();
            if (s.mode() != null && !s.mode().equalsIgnoreCase("default") && !s.mode().equalsIgnoreCase(byBegin)) {
                throw new Unexpressible("its mode line says '" + s.mode() + "' and its BEGINs open " + byBegin + " transactions");
            }
            return byBegin;
        }
        if (s.mode() == null || s.mode().equalsIgnoreCase("default")) {
            return engine.modes().get(0);
        }
        if (s.dbms() != null && !s.dbms().equals(dbms)) {
            throw new Unexpressible("its mode '" + s.mode() + "' is one of " + s.dbms() + "'s (its -- dbms: line), and the case is for " + dbms);
        }
        return engine.modes().stream().filter(m -> m.equalsIgnoreCase(s.mode())).findFirst().orElseThrow(() -> new Unexpressible(
                "its mode '" + s.mode() + "' is not one of " + dbms + "'s (" + String.join(", ", engine.modes()) + ")"));
    }

    private static final Pattern CREATE_FUNCTION = Pattern.compile("^CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:FUNCTION|PROCEDURE)\\s+(?:\\w+\\.)?\"?(\\w+)\"?\\s*\\(",
            Pattern.CASE_INSENSITIVE);

    /** The functions and procedures the setup creates: what a statement calling one reads and writes is not known. */
    static List<Pattern> functions(List<String> setup) {
        List<Pattern> out = new ArrayList<>();
        for (String sql : setup) {
            Matcher m = CREATE_FUNCTION.matcher(SqlText.withoutComments(sql));
            if (m.find()) {
                out.add(Pattern.compile("\\b" + Pattern.quote(m.group(1)) + "\\s*\\(", Pattern.CASE_INSENSITIVE));
            }
        }
        return out;
    }

    /**
     * The settings every session of a case on {@code engine} gets anyway (its session setup, as txfuzz's own reproducers
     * write it: no lock or statement timeouts and the like), in {@link #normal} form: a file that sets them says nothing more.
     */
    static Set<String> ownSettings(txfuzz.dbms.Engine engine) {
        Set<String> out = new java.util.HashSet<>();
        for (IsolationLevel l : engine.isolationLevels()) {
            engine.sessionSetupSql(l, engine.modes().get(0)).forEach(q -> out.add(normal(q)));
        }
        return out;
    }

    static String normal(String sql) {
        return SqlText.oneLine(SqlText.withoutComments(sql)).toUpperCase(Locale.ROOT).replaceAll("\\s*=\\s*", " = ");
    }

    /** The tables the setup leaves: those it creates, less those it drops. */
    static List<String> tables(List<String> setup) throws Unexpressible {
        Map<String, String> tables = new LinkedHashMap<>();
        for (String sql : setup) {
            String flat = SqlText.withoutComments(sql);
            Matcher m = CREATE_TABLE.matcher(flat);
            if (m.find()) {
                if (m.group(2) != null) {
                    throw new Unexpressible("the setup creates a temporary table, which only its own session sees: " + SqlText.oneLine(sql));
                }
                String name = m.group(3).replace("`", "");
                tables.put(name.toLowerCase(Locale.ROOT), name);
                continue;
            }
            Matcher d = DROP_TABLE.matcher(flat);
            if (d.find()) {
                for (String name : d.group(1).split(",")) {
                    tables.remove(name.strip().replace("`", "").toLowerCase(Locale.ROOT));
                }
            }
        }
        if (tables.isEmpty()) {
            throw new Unexpressible("the setup creates no table");
        }
        return List.copyOf(tables.values());
    }

    private static final class TxnDraft {
        final List<Stmt> statements = new ArrayList<>();
        final List<String> settings;
        /** Session settings made inside the transaction: the session's later transactions keep them if it commits. */
        final List<String> madeInside = new ArrayList<>();
        IsolationLevel level;

        TxnDraft(IsolationLevel level, List<String> settings) {
            this.level = level;
            this.settings = List.copyOf(settings);
        }
    }

    private static final class SessionState {
        TxnDraft open;
        IsolationLevel sessionLevel;
        IsolationLevel nextLevel;
        boolean autocommit = true;
        boolean implicitBlock;
        /** Settings the session made (SET name = value), which every later transaction of it runs with. */
        final List<String> settings = new ArrayList<>();
        /**
         * A setting made in a transaction that rolled back: PostgreSQL undoes it, MySQL keeps it, so what the session's later
         * transactions run with depends on the engine; null when there is none.
         */
        String undoneOrNot;
    }

    private static final class Builder {
        final txfuzz.dbms.Engine engine;
        final List<String> beginVariants;
        final boolean mysql;
        final List<Pattern> functions;
        final Set<String> ownSettings;
        /** The modes the schedule's BEGINs name (SQLite's BEGIN IMMEDIATE), and whether a BEGIN names none. */
        final Set<String> namedModes = new java.util.TreeSet<>();
        boolean modelessBegin;
        final List<TxnDraft> txns = new ArrayList<>();
        final List<TxnDraft> order = new ArrayList<>();
        final Map<String, SessionState> sessions = new HashMap<>();
        final List<String> sessionOrder = new ArrayList<>();

        Builder(txfuzz.dbms.Engine engine, boolean mysql, List<Pattern> functions, Set<String> ownSettings) {
            this.engine = engine;
            this.beginVariants = java.util.stream.Stream.concat(engine.beginVariants().stream(), engine.importedBeginVariants().stream()).toList();
            this.mysql = mysql;
            this.functions = functions;
            this.ownSettings = ownSettings;
        }

        /** The modes the transactions' BEGINs open them in; empty when no BEGIN names one (a plain BEGIN is then mode-neutral). */
        Set<String> beginModes() {
            Set<String> out = new java.util.TreeSet<>(namedModes);
            if (!out.isEmpty() && modelessBegin) {
                engine.modeOfBegin("BEGIN").ifPresent(out::add);
            }
            return out;
        }

        void submit(Schedule.Submission sub) throws Unexpressible {
            SessionState st = sessions.computeIfAbsent(sub.session(), k -> {
                sessionOrder.add(k);
                return new SessionState();
            });
            boolean control = sub.statements().stream().anyMatch(q -> isControl(SqlText.words(q, 2)));
            // opened by the block's first data statement, so a block of settings alone opens nothing
            st.implicitBlock = sub.implicitTransaction() && sub.statements().size() > 1 && !control && st.open == null;
            for (String sql : sub.statements()) {
                statement(st, sql);
            }
            if (st.implicitBlock && st.open != null) {
                close(st, Stmt.commit());
            }
            st.implicitBlock = false;
        }

        void endAll() {
            // a session left in a transaction is rolled back when it disconnects (the format's own end)
            for (String name : sessionOrder) {
                SessionState st = sessions.get(name);
                if (st.open != null) {
                    close(st, Stmt.rollback());
                }
            }
        }

        private static boolean isControl(List<String> w) {
            String first = w.isEmpty() ? "" : w.get(0);
            String second = w.size() > 1 ? w.get(1) : "";
            return first.equals("BEGIN") || first.equals("START") || first.equals("COMMIT") || first.equals("END") || first.equals("ABORT")
                    || (first.equals("ROLLBACK") && !second.equals("TO"));
        }

        private void open(SessionState st, Stmt begin, IsolationLevel level) throws Unexpressible {
            requireKnownSettings(st);
            IsolationLevel l = level != null ? level : st.nextLevel != null ? st.nextLevel : st.sessionLevel;
            st.nextLevel = null;
            TxnDraft t = new TxnDraft(l, st.settings);
            t.statements.add(begin);
            txns.add(t);
            order.add(t);
            st.open = t;
        }

        private void requireKnownSettings(SessionState st) throws Unexpressible {
            if (st.undoneOrNot != null) {
                throw new Unexpressible("a session setting made in a transaction that rolled back, which some engines undo and others keep,"
                        + " and the session runs on: " + st.undoneOrNot);
            }
        }

        private void close(SessionState st, Stmt end) {
            if (end.kind() == StmtKind.COMMIT) {
                st.settings.addAll(st.open.madeInside);
            } else if (!st.open.madeInside.isEmpty()) {
                st.undoneOrNot = st.open.madeInside.get(0);
            }
            st.open.statements.add(end);
            order.add(st.open);
            st.open = null;
        }

        private void statement(SessionState st, String sql) throws Unexpressible {
            String flat = SqlText.withoutComments(sql);
            String line = SqlText.oneLine(sql);
            List<String> w = SqlText.words(flat, 3);
            String first = w.isEmpty() ? "" : w.get(0);
            String second = w.size() > 1 ? w.get(1) : "";
            if (st.open != null && !first.equals("BEGIN") && !first.equals("START") && engine.commitsOpenTransaction(flat)) {
                close(st, Stmt.commit()); // the engine commits the open transaction before it runs the statement (MariaDB's DDL)
            }
            switch (first) {
                case "BEGIN", "START" -> begin(st, flat, line);
                case "COMMIT", "END" -> {
                    if (second.equals("PREPARED") || flat.toUpperCase(Locale.ROOT).contains("AND CHAIN")) {
                        throw new Unexpressible("not expressible as a case: " + line);
                    }
                    if (st.open != null) { // COMMIT outside a transaction does nothing (a warning in PostgreSQL)
                        close(st, Stmt.commit());
                    }
                }
                case "ABORT" -> {
                    if (st.open != null) {
                        close(st, Stmt.rollback());
                    }
                }
                case "ROLLBACK" -> {
                    if (second.equals("TO")) {
                        inTransaction(st, new Stmt(StmtKind.OTHER, flat, true), line);
                    } else if (second.equals("PREPARED") || flat.toUpperCase(Locale.ROOT).contains("AND CHAIN")) {
                        throw new Unexpressible("not expressible as a case: " + line);
                    } else if (st.open != null) {
                        close(st, Stmt.rollback());
                    }
                }
                case "SAVEPOINT", "RELEASE" -> inTransaction(st, new Stmt(StmtKind.OTHER, flat, true), line);
                case "PREPARE" -> throw new Unexpressible("two-phase commit or a prepared statement, session state a case does not keep: " + line);
                case "SET" -> set(st, flat, line);
                case "PRAGMA", "RESET" -> setting(st, flat, line);
                case "EXPLAIN", "SHOW", "DESCRIBE", "DESC" -> other(st, sql, line);
                case "LOCK" -> {
                    if (second.equals("TABLES")) {
                        throw new Unexpressible("LOCK TABLES, session state a case does not keep: " + line);
                    }
                    inTransaction(st, new Stmt(StmtKind.OTHER, flat, true), line);
                }
                case "SELECT", "TABLE", "VALUES" -> {
                    if (ForeignStatement.isCatalogQuery(flat)) {
                        other(st, sql, line); // reads the engine's catalog, no row of the case: reported, not judged
                    } else {
                        data(st, StmtKind.SELECT, sql, line);
                    }
                }
                case "WITH" -> {
                    java.util.Optional<StmtKind> kind = withKind(flat);
                    if (kind.isPresent()) {
                        data(st, kind.get(), sql, line);
                    } else {
                        other(st, sql, line); // a CTE that writes: one statement, two writes, which row tracking does not follow
                    }
                }
                case "INSERT" -> {
                    String up = flat.toUpperCase(Locale.ROOT);
                    data(st, up.contains("ON CONFLICT") || up.contains("ON DUPLICATE KEY") ? StmtKind.UPSERT : StmtKind.INSERT, sql, line);
                }
                case "REPLACE", "MERGE" -> data(st, StmtKind.UPSERT, sql, line);
                case "UPDATE" -> data(st, StmtKind.UPDATE, sql, line);
                case "DELETE" -> data(st, StmtKind.DELETE, sql, line);
                default -> {
                    if (first.isEmpty()) {
                        throw new Unexpressible("an empty statement: " + line);
                    }
                    other(st, sql, line); // DDL, REFRESH MATERIALIZED VIEW, CALL …: run at its step; row tracking does not follow it
                }
            }
        }

        /**
         * A WITH statement's kind: that of its main statement, the first SELECT, INSERT, UPDATE, DELETE or MERGE outside
         * parentheses; empty when a CTE writes (inside parentheses, not FOR UPDATE: one statement, two writes) or there is no main
         * statement to find.
         */
        private static java.util.Optional<StmtKind> withKind(String flat) {
            String up = flat.toUpperCase(Locale.ROOT).replaceAll("'([^']|'')*'", "''").replaceAll("FOR\\s+(NO\\s+KEY\\s+)?UPDATE", "FOR LOCK");
            int depth = 0;
            StringBuilder top = new StringBuilder();
            StringBuilder inner = new StringBuilder();
            for (char c : up.toCharArray()) {
                if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                }
                (depth == 0 ? top : inner).append(c == '(' || c == ')' ? ' ' : c);
            }
            if (WRITE_WORD.matcher(inner).find()) {
                return java.util.Optional.empty();
            }
            Matcher m = Pattern.compile("\\b(SELECT|INSERT|UPDATE|DELETE|MERGE)\\b").matcher(top);
            if (!m.find()) {
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(switch (m.group(1)) {
                case "INSERT" -> top.indexOf("ON CONFLICT") >= 0 ? StmtKind.UPSERT : StmtKind.INSERT;
                case "UPDATE" -> StmtKind.UPDATE;
                case "DELETE" -> StmtKind.DELETE;
                case "MERGE" -> StmtKind.UPSERT;
                default -> StmtKind.SELECT;
            });
        }

        private void begin(SessionState st, String flat, String line) throws Unexpressible {
            if (st.open != null) {
                if (!engine.commitsOpenTransaction(flat)) {
                    throw new Unexpressible("BEGIN inside an open transaction: " + line);
                }
                close(st, Stmt.commit()); // MariaDB, MySQL: the open transaction commits, and a new one starts
            }
            IsolationLevel level = null;
            Matcher m = LEVEL.matcher(flat);
            String rest = flat;
            if (m.find()) {
                level = level(m.group(1));
                rest = flat.substring(0, m.start()) + flat.substring(m.end());
            }
            String plain = rest.replace(",", " ").replaceAll("\\s+", " ").strip().toUpperCase(Locale.ROOT);
            java.util.Optional<String> mode = engine.modeOfBegin(plain);
            Stmt begin;
            if (mode.isPresent()) { // SQLite's BEGIN IMMEDIATE: the mode the case runs its transactions in
                if (plain.matches("BEGIN( TRANSACTION)?")) {
                    modelessBegin = true;
                } else {
                    namedModes.add(mode.get());
                }
                begin = Stmt.begin();
            } else if (plain.matches("BEGIN( WORK| TRANSACTION)?|START TRANSACTION( READ WRITE)?")) {
                begin = Stmt.begin();
            } else if (beginVariants.stream().anyMatch(v -> v.equalsIgnoreCase(plain))) {
                // as the engine spells the variant: the level and commas taken out of the text leave stray blanks
                begin = Stmt.begin(beginVariants.stream().filter(v -> v.equalsIgnoreCase(plain)).findFirst().orElseThrow());
            } else {
                throw new Unexpressible("a BEGIN this engine's cases do not run (" + SqlText.oneLine(rest) + "): " + line);
            }
            open(st, begin, level);
        }

        private void set(SessionState st, String flat, String line) throws Unexpressible {
            Matcher next = NEXT_LEVEL.matcher(flat);
            if (next.find()) {
                IsolationLevel level = levelIn(next.group(0), line);
                if (st.open == null) {
                    st.nextLevel = level; // MySQL: the next transaction's level
                } else if (st.open.statements.size() == 1) {
                    st.open.level = level; // PostgreSQL: before the transaction's first query
                } else {
                    throw new Unexpressible("SET TRANSACTION after the transaction's first statement: " + line);
                }
                return;
            }
            Matcher sess = SESSION_LEVEL.matcher(flat);
            if (sess.find()) {
                st.sessionLevel = levelIn(flat, line);
                return;
            }
            Matcher auto = AUTOCOMMIT.matcher(flat);
            if (mysql && auto.find()) {
                String v = auto.group(4).toUpperCase(Locale.ROOT);
                boolean on = v.equals("1") || v.equals("ON");
                if (on && st.open != null) { // turning autocommit on commits the open transaction
                    close(st, Stmt.commit());
                }
                st.autocommit = on;
                return;
            }
            if (ownSettings.contains(normal(flat))) {
                return; // every session of the case gets it anyway
            }
            if (flat.toUpperCase(Locale.ROOT).startsWith("SET LOCAL ")) {
                inTransaction(st, new Stmt(StmtKind.OTHER, flat, true), line);
                return;
            }
            setting(st, flat, line);
        }

        /**
         * A session setting (SET name = value, PRAGMA): before a transaction, its session's next transactions run with it
         * ({@link Txn#settings}); inside one, it runs at its step, and the session's later transactions keep it if it commits.
         */
        private void setting(SessionState st, String flat, String line) throws Unexpressible {
            if (ownSettings.contains(normal(flat))) {
                return; // every session of the case gets it anyway
            }
            requireKnownSettings(st);
            if (st.open == null) {
                st.settings.add(line);
                return;
            }
            st.open.statements.add(new Stmt(StmtKind.OTHER, flat, false));
            st.open.madeInside.add(line);
            order.add(st.open);
        }

        /**
         * A statement that is no query or write of the case's tables (a setting, EXPLAIN, SHOW, DDL, REFRESH …), run as it is at
         * its step: in the open transaction, else on its own. Whether row tracking can follow it is {@link ForeignStatement}'s call.
         */
        private void other(SessionState st, String sql, String line) throws Unexpressible {
            refuseSessionLock(sql, line);
            requireKnownSettings(st);
            place(st, new Stmt(StmtKind.OTHER, sql.strip(), false));
        }

        private static void refuseSessionLock(String sql, String line) throws Unexpressible {
            if (SESSION_LOCK.matcher(sql).find()) {
                throw new Unexpressible("a session-level lock, which outlives the transaction on a session a case does not keep: " + line);
            }
        }

        /**
         * {@code s} at its step: in the session's open transaction; in a new one where autocommit is off or statements were sent
         * together; else as an autocommit transaction of its own, at the level the session set for its next transaction.
         */
        private void place(SessionState st, Stmt s) throws Unexpressible {
            if (st.open == null && (!st.autocommit || st.implicitBlock)) {
                open(st, Stmt.begin(), null);
            }
            if (st.open != null) {
                st.open.statements.add(s);
                order.add(st.open);
                return;
            }
            TxnDraft t = new TxnDraft(st.nextLevel != null ? st.nextLevel : st.sessionLevel, st.settings);
            st.nextLevel = null;
            t.statements.add(s);
            txns.add(t);
            order.add(t);
        }

        /** A setting's value: {@code = 'read committed'}, {@code TO 'x-y'}. */
        private static final Pattern LEVEL_VALUE = Pattern.compile("(?:=|\\bTO\\b)\\s*'?([A-Za-z -]+)'?", Pattern.CASE_INSENSITIVE);

        /** The level a SET statement names: ISOLATION LEVEL x, or default_transaction_isolation = 'x', tx_isolation = 'x-y'. */
        private IsolationLevel levelIn(String flat, String line) throws Unexpressible {
            Matcher m = LEVEL.matcher(flat);
            if (m.find()) {
                return level(m.group(1));
            }
            Matcher v = LEVEL_VALUE.matcher(flat);
            if (v.find()) {
                IsolationLevel l = IsolationLevel.parse(v.group(1).strip());
                if (l != null && l != IsolationLevel.SNAPSHOT) {
                    return l;
                }
            }
            throw new Unexpressible("an isolation level this cannot read: " + line);
        }

        private static IsolationLevel level(String words) {
            return IsolationLevel.parse(words.replaceAll("\\s+", " "));
        }

        private void inTransaction(SessionState st, Stmt s, String line) throws Unexpressible {
            if (st.open == null) {
                throw new Unexpressible("needs an open transaction but runs outside one: " + line);
            }
            st.open.statements.add(s);
            order.add(st.open);
        }

        private void data(SessionState st, StmtKind kind, String sql, String line) throws Unexpressible {
            refuseSessionLock(sql, line);
            if (kind.isWrite() && SYSTEM_CATALOG.matcher(SqlText.withoutComments(sql)).find()) {
                other(st, sql, line); // writes a system catalog, outside the case's tables
                return;
            }
            for (Pattern f : functions) {
                if (f.matcher(SqlText.withoutComments(sql)).find()) {
                    other(st, sql, line); // calls a function the setup creates: what it reads and writes is not known
                    return;
                }
            }
            requireKnownSettings(st);
            place(st, new Stmt(kind, sql.strip(), false));
        }
    }
}
