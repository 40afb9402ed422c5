package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Feature;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * One version-set read of every table ({@code UNION ALL}, rows led by their table's name) against the
 * read per table that it replaced (and that older case files still hold): on every engine, generated
 * cases of two and three tables run in both forms give each statement the same version sets, and the
 * one read never fails. This is what lets the oracle send one statement where it sent one per table.
 */
class VersionSetReadFormsTest {
    private static final CaseGenerator GENERATOR = new CaseGenerator(GenConfig.defaults().withInstrumentation(true));

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void oneReadOfEveryTableShowsWhatAReadPerTableShowed() throws Exception {
        for (String dbms : List.of("h2", "hsqldb", "derby", "sqlite", "duckdb", "postgres", "mariadb")) {
            try (Target t = TestServers.open(dbms); Executor ex = new Executor(t, ExecutorConfig.defaults())) {
                boolean currentReads = t.dialect().features().contains(Feature.CURRENT_READS);
                int compared = 0;
                int sawLaterTables = 0;
                for (IsolationLevel level : List.of(t.isolationLevels().get(0), t.isolationLevels().get(t.isolationLevels().size() - 1))) {
                    for (long i = 0; i < 12 && compared < 4; i++) {
                        TestCase generated = GENERATOR.generate(t.name(), t.dialect(), level, t.modes().get(0), 13, i);
                        if (generated.tables().size() < 2) {
                            continue;
                        }
                        TestCase combined = VersionSetReads.add(generated);
                        TestCase perTable = readPerTable(combined);
                        Trace one = ex.run(combined);
                        Trace many = ex.run(perTable);
                        for (ExecutedStmt e : one.schedule()) {
                            if (VersionSetReads.isVsr(combined.stmt(e.ref()))) {
                                assertFalse(e.result().failed(), dbms + " " + level + " i" + i + ": " + combined.stmt(e.ref()).sql() + ": " + e.result());
                            }
                        }
                        Optional<Execution> a = TraceCapture.capture(combined, one, UnaryOperator.identity(), currentReads);
                        Optional<Execution> b = TraceCapture.capture(perTable, many, UnaryOperator.identity(), currentReads);
                        assertEquals(b.isPresent(), a.isPresent(), dbms + " " + level + " i" + i);
                        if (a.isEmpty()) {
                            continue;
                        }
                        if (!sameRun(a.get(), b.get())) {
                            continue; // the engine's timing gave the two runs another course (a wait, a deadlock's victim): nothing to compare
                        }
                        for (int k = 0; k < a.get().stmts().size(); k++) {
                            StmtExec x = a.get().stmts().get(k);
                            StmtExec y = b.get().stmts().get(k);
                            assertEquals(y.vsr(), x.vsr(), dbms + " " + level + " i" + i + " " + x.ref());
                            if (x.vsr().size() > 1 && !x.vsr().get(x.vsr().size() - 1).items().isEmpty()) {
                                sawLaterTables++;
                            }
                        }
                        compared++;
                    }
                }
                assertTrue(compared >= 3, dbms + ": only " + compared + " cases of two or more tables ran the same course in both forms");
                assertTrue(sawLaterTables > 0, dbms + ": no version set of a table after the first had rows");
            }
        }
    }

    /**
     * Whether two runs of the case took the same course: the same statements ran, in the same completion order, with
     * the same waits and outcomes (refs differ: the per-table form has more statements before each).
     */
    private static boolean sameRun(Execution a, Execution b) {
        if (a.stmts().size() != b.stmts().size() || !a.ends().equals(b.ends())) {
            return false;
        }
        for (int k = 0; k < a.stmts().size(); k++) {
            StmtExec x = a.stmts().get(k);
            StmtExec y = b.stmts().get(k);
            if (!x.sql().equals(y.sql()) || x.blocked() != y.blocked() || !x.reads().equals(y.reads())) {
                return false;
            }
        }
        return true;
    }

    /** {@code c} with each version-set read of several tables made one read per table, as cases were written before. */
    private static TestCase readPerTable(TestCase c) {
        List<Txn> txns = new ArrayList<>();
        for (Txn t : c.transactions()) {
            List<Stmt> out = new ArrayList<>();
            for (Stmt s : t.statements()) {
                if (VersionSetReads.isVsr(s)) {
                    s.tracking().tables().forEach(table ->
                            out.add(Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM " + table, Tracking.versionSetRead(List.of(table)))));
                } else {
                    out.add(s);
                }
            }
            txns.add(t.with(t.id(), out));
        }
        List<Integer> order = new ArrayList<>();
        for (StmtRef r : c.submittedOrder()) {
            int times = VersionSetReads.isVsr(c.stmt(r)) ? c.stmt(r).tracking().tables().size() : 1;
            for (int k = 0; k < times; k++) {
                order.add(r.txn());
            }
        }
        return c.withTransactions(txns, order);
    }
}
