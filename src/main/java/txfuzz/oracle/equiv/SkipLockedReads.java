package txfuzz.oracle.equiv;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.statement.select.Select;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;

/**
 * Whether a case's own program has a read that skips locked rows ({@code … FOR UPDATE SKIP LOCKED}): its result depends
 * on the locks other transactions hold, not only on the versions it reads, so no replay without those transactions can
 * give it — TxCheck's premise that a statement's result is determined by the versions it reads does not hold
 * (PostgreSQL: "Skipping locked rows provides an inconsistent view of the data",
 * https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE). The generator writes none; an
 * imported schedule (PostgreSQL's skip-locked specs) does. Row tracking's own companion reads skip locked rows too,
 * but they are the instrumentation's, not the program's, and are left out.
 */
final class SkipLockedReads {
    private SkipLockedReads() {
    }

    static boolean present(TestCase c) {
        return c.transactions().stream().flatMap(t -> t.statements().stream()).anyMatch(SkipLockedReads::skipsLockedRows);
    }

    private static boolean skipsLockedRows(Stmt s) {
        if (!s.kind().isRead() || s.tracking() != null && s.tracking().role() != Tracking.Role.READ) {
            return false;
        }
        if (!s.sql().toUpperCase(java.util.Locale.ROOT).contains("SKIP")) {
            return false; // no read skips locked rows without saying so: the parse (most of the oracle's own CPU on H2) is not needed
        }
        try {
            return txfuzz.gen.StatementStructure.parseOrThrow(s.sql()) instanceof Select sel && sel.isSkipLocked();
        } catch (JSQLParserException | RuntimeException e) {
            // a read the parser does not read (MariaDB's LOCK IN SHARE MODE): its words say it
            return s.sql().toUpperCase(java.util.Locale.ROOT).replaceAll("'[^']*'", "''").matches("(?s).*\\bSKIP\\s+LOCKED\\b.*");
        }
    }
}
