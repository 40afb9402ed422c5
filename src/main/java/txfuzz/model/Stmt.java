package txfuzz.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * One SQL statement of a transaction. The SQL text is the source of truth: it is what the user
 * reads, edits and replays. {@code needsTransaction} marks statements that cannot run as an
 * autocommit statement (SAVEPOINT and the like), which rules out the statement-level replay.
 * {@code tracking} (optional, null for plain cases) tells the history recorder how to read the
 * statement's result in an instrumented case.
 */
public record Stmt(StmtKind kind, String sql, boolean needsTransaction,
                   @JsonInclude(JsonInclude.Include.NON_NULL) Tracking tracking) {
    public Stmt {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(sql, "sql");
    }

    public Stmt(StmtKind kind, String sql, boolean needsTransaction) {
        this(kind, sql, needsTransaction, null);
    }

    @JsonCreator
    static Stmt json(@JsonProperty("kind") StmtKind kind, @JsonProperty("sql") String sql,
                     @JsonProperty("needsTransaction") boolean needsTransaction, @JsonProperty("tracking") Tracking tracking) {
        return new Stmt(kind, sql, needsTransaction, tracking);
    }

    public static Stmt of(StmtKind kind, String sql) {
        return new Stmt(kind, sql, false);
    }

    public static Stmt of(StmtKind kind, String sql, Tracking tracking) {
        return new Stmt(kind, sql, false, tracking);
    }

    public Stmt withTracking(Tracking t) {
        return new Stmt(kind, sql, needsTransaction, t);
    }

    public static Stmt begin() {
        return new Stmt(StmtKind.BEGIN, PLAIN_BEGIN, false);
    }

    /**
     * A BEGIN spelt as one of the engine's variants ({@link txfuzz.dbms.Engine#beginVariants()}, e.g.
     * START TRANSACTION WITH CONSISTENT SNAPSHOT): the session opens the transaction as for BEGIN, then
     * runs {@code sql}.
     */
    public static Stmt begin(String sql) {
        return new Stmt(StmtKind.BEGIN, sql, false);
    }

    /** The SQL text of a BEGIN that is no variant. */
    public static final String PLAIN_BEGIN = "BEGIN";

    /**
     * Functions that return the key the session generated last: a statement using one reads a value an earlier statement
     * allocated on the same session, not data.
     */
    public static final java.util.regex.Pattern LAST_GENERATED = java.util.regex.Pattern.compile(
            "(?i)\\b(?:currval|lastval|last_insert_id|last_insert_rowid|scope_identity|identity_val_local)\\s*\\(|@@identity\\b|\\bidentity\\s*\\(\\s*\\)");
    /** A user variable ({@code @name}: MariaDB, H2), a value of the session's. */
    private static final java.util.regex.Pattern USER_VARIABLE = java.util.regex.Pattern.compile("@@?\\w");

    /**
     * Whether what the statement does can depend on what earlier statements left in its session besides the data: it reads
     * a value of the session ({@link #LAST_GENERATED}, a user variable), or is of a kind that may leave one (SET,
     * SAVEPOINT, DDL: {@link StmtKind#OTHER}).
     */
    public boolean dependsOnSession() {
        return kind == StmtKind.OTHER || LAST_GENERATED.matcher(sql).find() || USER_VARIABLE.matcher(sql).find();
    }

    /** A BEGIN's variant SQL, empty for plain BEGIN and for any other statement. */
    public java.util.Optional<String> beginVariant() {
        return kind == StmtKind.BEGIN && !sql.strip().equalsIgnoreCase(PLAIN_BEGIN) ? java.util.Optional.of(sql) : java.util.Optional.empty();
    }

    public static Stmt commit() {
        return new Stmt(StmtKind.COMMIT, "COMMIT", false);
    }

    public static Stmt rollback() {
        return new Stmt(StmtKind.ROLLBACK, "ROLLBACK", false);
    }
}
