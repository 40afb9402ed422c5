package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * Adds TxCheck's Version-Set Reads (OSDI 2023 §3.2, Fig. 5) to an instrumented case: right before
 * each statement of the program (and before its tag-update, if it has one), in its session, one read
 * of the {@code (rid, wl)} of every row of every table of the case. Every table, not only the ones the
 * statement names: a larger version set only adds dependencies that constrain the replay orders,
 * never one that allows a wrong order (§3.3). One statement reads them all ({@code SELECT 't0', rid,
 * wl FROM t0 UNION ALL SELECT 't1', rid, wl FROM t1}, each row led by its table's name), not a
 * statement per table: the reads were most of an instrumented case's statements, and each is a round
 * trip, on a server, in the run and in every replay. Nothing of another session runs between a
 * statement's reads either way, so one statement sees what the reads one by one saw.
 */
public final class VersionSetReads {
    private VersionSetReads() {
    }

    /** {@code c} with exactly one version-set read (of every table) before each program statement. */
    public static TestCase add(TestCase c) {
        TestCase plain = strip(c);
        Set<StmtRef> firsts = new HashSet<>();
        StatementGroups.of(plain).groups().forEach(g -> firsts.add(g.first()));
        List<Txn> txns = new ArrayList<>();
        for (Txn t : plain.transactions()) {
            List<Stmt> out = new ArrayList<>();
            for (int k = 0; k < t.statements().size(); k++) {
                if (firsts.contains(new StmtRef(t.id(), k))) {
                    out.add(read(plain.tables()));
                }
                out.add(t.statements().get(k));
            }
            txns.add(t.with(t.id(), out));
        }
        List<Integer> order = new ArrayList<>();
        for (StmtRef r : plain.submittedOrder()) {
            if (firsts.contains(r)) {
                order.add(r.txn());
            }
            order.add(r.txn());
        }
        return plain.withTransactions(txns, order);
    }

    /**
     * The version-set read of {@code tables}: {@code SELECT rid, wl FROM t} for one table; for more, a
     * {@code UNION ALL} whose rows lead with their table's name (as {@link TraceCapture} reads them).
     */
    static Stmt read(List<String> tables) {
        if (!rowsLeadWithTable(tables)) {
            return Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM " + tables.get(0), Tracking.versionSetRead(tables));
        }
        List<String> sides = new ArrayList<>();
        for (String table : tables) {
            sides.add("SELECT '" + table.replace("'", "''") + "', rid, wl FROM " + table);
        }
        return Stmt.of(StmtKind.SELECT, String.join(" UNION ALL ", sides), Tracking.versionSetRead(tables));
    }

    /** Whether a version-set read of {@code tables} leads each row with its table's name: the read and its capture agree here. */
    static boolean rowsLeadWithTable(List<String> tables) {
        return tables.size() > 1;
    }

    /**
     * A row of a run's version-set read that names no table of the read, with the read it came from: a wrong result of the
     * read itself, whose first select item is a string literal that a {@code UNION ALL} passes through unchanged.
     *
     * @param named the row's first value as the engine returned it (null for SQL NULL)
     */
    record MisnamedRow(StmtRef read, String sql, List<String> tables, String named) {
    }

    /** The first row of a version-set read of {@code trace} that names no table of its read, if any (see {@link MisnamedRow}). */
    static java.util.Optional<MisnamedRow> misnamedRow(TestCase c, txfuzz.exec.Trace trace) {
        for (txfuzz.exec.ExecutedStmt e : trace.schedule()) {
            Stmt s = c.stmt(e.ref());
            if (!isVsr(s) || !rowsLeadWithTable(s.tracking().tables()) || e.result().failed() || e.result().rows() == null) {
                continue;
            }
            for (List<String> row : e.result().rows()) {
                // an engine may pad the name to the longest one's length (a CHAR): TraceCapture strips it too
                String named = row.isEmpty() || row.get(0) == null ? null : row.get(0).stripTrailing();
                if (named == null || !s.tracking().tables().contains(named)) {
                    return java.util.Optional.of(new MisnamedRow(e.ref(), s.sql(), s.tracking().tables(), row.isEmpty() ? null : row.get(0)));
                }
            }
        }
        return java.util.Optional.empty();
    }

    /** {@code c} without any version-set read. */
    public static TestCase strip(TestCase c) {
        List<Txn> txns = new ArrayList<>();
        for (Txn t : c.transactions()) {
            txns.add(t.with(t.id(), t.statements().stream().filter(s -> !isVsr(s)).toList()));
        }
        List<Integer> order = new ArrayList<>();
        for (StmtRef r : c.submittedOrder()) {
            if (!isVsr(c.stmt(r))) {
                order.add(r.txn());
            }
        }
        return c.withTransactions(txns, order);
    }

    static boolean isVsr(Stmt s) {
        return s.tracking() != null && s.tracking().role() == Tracking.Role.VERSION_SET_READ;
    }
}
