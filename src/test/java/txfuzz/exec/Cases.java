package txfuzz.exec;

import java.util.ArrayList;
import java.util.List;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/** Builds hand-written test cases for tests: {@code Cases.on("h2").table("t").setup(...).txn(...).order(...)}. */
public final class Cases {
    private final String dbms;
    private IsolationLevel level = IsolationLevel.READ_COMMITTED;
    private String mode = "default";
    private final List<String> tables = new ArrayList<>();
    private final List<String> setup = new ArrayList<>();
    private final List<Txn> txns = new ArrayList<>();

    private Cases(String dbms) {
        this.dbms = dbms;
    }

    public static Cases on(String dbms) {
        return new Cases(dbms);
    }

    public Cases level(IsolationLevel l) {
        this.level = l;
        return this;
    }

    public Cases mode(String m) {
        this.mode = m;
        return this;
    }

    public Cases table(String name) {
        tables.add(name);
        return this;
    }

    public Cases setup(String... sql) {
        setup.addAll(List.of(sql));
        return this;
    }

    /** An explicit transaction: BEGIN, the statements, then COMMIT (or ROLLBACK if the last is "ROLLBACK"). */
    public Cases txn(String... sql) {
        List<Stmt> stmts = new ArrayList<>();
        stmts.add(Stmt.begin());
        for (String s : sql) {
            if (s.equalsIgnoreCase("ROLLBACK")) {
                stmts.add(Stmt.rollback());
            } else if (s.equalsIgnoreCase("COMMIT")) {
                stmts.add(Stmt.commit());
            } else {
                stmts.add(Stmt.of(kindOf(s), s));
            }
        }
        StmtKind last = stmts.get(stmts.size() - 1).kind();
        if (last != StmtKind.COMMIT && last != StmtKind.ROLLBACK) {
            stmts.add(Stmt.commit());
        }
        txns.add(new Txn(txns.size() + 1, stmts));
        return this;
    }

    /** An autocommit transaction of one statement. */
    public Cases autocommit(String sql) {
        txns.add(new Txn(txns.size() + 1, List.of(Stmt.of(kindOf(sql), sql))));
        return this;
    }

    public TestCase order(Integer... order) {
        return new TestCase(TestCase.FORMAT_VERSION, dbms, 0, 0, level, mode, null, tables, setup, txns, List.of(order));
    }

    public static StmtKind kindOf(String sql) {
        String w = sql.trim().split("\\s+")[0].toUpperCase();
        return switch (w) {
            case "SELECT", "WITH", "VALUES" -> StmtKind.SELECT;
            case "INSERT" -> sql.toUpperCase().contains("ON CONFLICT") || sql.toUpperCase().contains("ON DUPLICATE") ? StmtKind.UPSERT : StmtKind.INSERT;
            case "UPDATE" -> StmtKind.UPDATE;
            case "DELETE" -> StmtKind.DELETE;
            case "MERGE", "REPLACE", "UPSERT" -> StmtKind.UPSERT;
            default -> StmtKind.OTHER;
        };
    }
}
