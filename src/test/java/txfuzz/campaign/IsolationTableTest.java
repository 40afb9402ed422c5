package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.IsolationLevel;

class IsolationTableTest {
    /** H2, except that its third fresh database fails with a runtime exception (as a broken driver or a txfuzz bug would). */
    static final class ThirdDatabaseFails extends DelegatingTarget {
        final AtomicInteger opened = new AtomicInteger();

        ThirdDatabaseFails() {
            super(new H2Target());
        }

        @Override
        public Database freshDatabase() throws SQLException {
            if (opened.incrementAndGet() == 3) {
                throw new IllegalStateException("injected: the third database cannot be opened");
            }
            return real.freshDatabase();
        }
    }

    @Test
    void aRunThatThrowsIsCountedPrintedAndFiledNotDropped(@TempDir Path out) throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        IsolationTable.Result r;
        try (ThirdDatabaseFails target = new ThirdDatabaseFails()) {
            r = new IsolationTable(target, new IsolationTable.Config(List.of(IsolationLevel.SERIALIZABLE), List.of(), 1, null, 6, 0, out,
                    ExecutorConfig.defaults()), new PrintStream(progress, true, StandardCharsets.UTF_8)).run();
        }
        IsolationTable.Row row = r.rows().get(0);
        assertEquals(1, row.failures(), row.toString());
        assertTrue(row.failure().contains("injected: the third database cannot be opened"), row.failure());
        assertTrue(row.histories() <= 5, "the failed run gave no history: " + row);
        String printed = progress.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("failed") && printed.contains("injected"), printed);
        String md = Files.readString(out.resolve("isolation-table.md"));
        assertTrue(md.contains("Runs that failed") && md.contains("injected"), md);
        assertTrue(Files.readString(out.resolve("isolation-table.json")).contains("\"failures\" : 1"));
        String id = row.failure().replaceAll(".*\\(findings/([^)]+)\\)$", "$1");
        String verdict = Files.readString(out.resolve("findings").resolve(id).resolve("verdict.md"));
        assertTrue(verdict.contains("## explicit: engine-failure — bug-candidate") && verdict.contains("injected"), verdict);
    }

    @Test
    void cellsAreKeyedByTheOraclesSpellingOfTheKind() {
        IsolationTable.Row row = new IsolationTable.Row("SERIALIZABLE", "default", 1, 2, 0.1,
                java.util.Map.of("lost-update", new IsolationTable.Cell("lost-update", IsolationTable.Standing.BUG_CANDIDATE, 1, "h2-SER-lost-update-s1-i0")),
                0, null);
        String md = IsolationTable.markdown(new IsolationTable.Result("h2", "H2", "controlled", 1, List.of(row)));
        assertTrue(md.contains(" lost-update |") && md.contains("❗ 1"), md);
        assertTrue(md.contains("SERIALIZABLE, lost-update: `h2-SER-lost-update-s1-i0`"), md);
    }
}
