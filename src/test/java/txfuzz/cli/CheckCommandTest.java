package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code txfuzz check} as an Elle user meets it: Elle's consistency-model names, the explanation of
 * each anomaly on the terminal, and the history's meta.dbms as the profile that judges it.
 */
@Tag("unit")
class CheckCommandTest {
    @TempDir
    Path dir;

    private Path history(String header) throws Exception {
        Path h = dir.resolve("h.jsonl");
        Files.writeString(h, (header == null ? "" : header + "\n") + CliTest.LOST_UPDATE_HISTORY);
        return h;
    }

    @Test
    void elleModelNamesAreLevelsAndStrictSerializableSaysWhatIsNotChecked() throws Exception {
        Path h = history(null);
        CliTest.Result si = CliTest.run("check", h.toString(), "--level", "snapshot-isolation");
        assertEquals(1, si.code(), si.toString());
        assertTrue(si.out().contains("transactions at SNAPSHOT"), si.out());
        assertTrue(si.out().contains("bug-candidate: lost update at SNAPSHOT"), si.out());
        CliTest.Result ru = CliTest.run("check", h.toString(), "--level", "read-uncommitted");
        assertEquals(0, ru.code(), "a lost update is no PL-1 anomaly: " + ru);
        CliTest.Result strict = CliTest.run("check", h.toString(), "--level", ":strict-serializable");
        assertEquals(1, strict.code(), strict.toString());
        assertTrue(strict.out().contains("at SERIALIZABLE"), strict.out());
        assertTrue(strict.out().contains("note: a history records no real-time order"), strict.out());
        assertFalse(si.out().contains("note:"), "snapshot-isolation is checked as defined: " + si.out());
        CliTest.Result unknown = CliTest.run("check", h.toString(), "--level", "linearizable");
        assertEquals(2, unknown.code(), unknown.toString());
        assertTrue(unknown.err().contains("Elle's consistency models: read-uncommitted, read-committed, repeatable-read, snapshot-isolation,"
                + " serializable, strict-serializable"), unknown.err());
        assertEquals(1, unknown.err().lines().count(), unknown.err());
    }

    @Test
    void theExplanationOfEachAnomalyIsPrintedNotOnlyFiled() throws Exception {
        CliTest.Result r = CliTest.run("check", history(null).toString(), "--level", "REPEATABLE_READ");
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.out().contains("  cycle: T1 --rw("), r.out());
        // the explanation names what each transaction read and wrote, as verdict.md does
        txfuzz.history.History h = txfuzz.history.HistoryJson.read(dir.resolve("h.jsonl"));
        String explanation = txfuzz.history.IsolationChecker.analyze(h).judge(txfuzz.model.IsolationLevel.REPEATABLE_READ, java.util.Set.of())
                .stream().filter(f -> f.proscribed()).findFirst().orElseThrow().explanation();
        String firstLine = explanation.lines().filter(l -> !l.isBlank()).findFirst().orElseThrow();
        assertTrue(r.out().contains("  " + firstLine), "the explanation's first line, indented: " + firstLine + "\n" + r.out());
    }

    @Test
    void metaDbmsChoosesTheProfileAndAnUnknownOneIsAOneLineError() throws Exception {
        // MariaDB documents the lost update at REPEATABLE READ: judged against its profile, it is documented, not a bug candidate
        Path h = history("{\"format\":\"txfuzz-history\",\"version\":1,\"meta\":{\"dbms\":\"mariadb\",\"level\":\"REPEATABLE_READ\"}}");
        CliTest.Result r = CliTest.run("check", h.toString());
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("against the mariadb profile"), r.out());
        assertTrue(r.out().contains("documented: lost update at REPEATABLE READ"), r.out());
        CliTest.Result none = CliTest.run("check", h.toString(), "--dbms", "none");
        assertEquals(1, none.code(), "without a profile it is a bug candidate: " + none);
        Path other = history("{\"format\":\"txfuzz-history\",\"version\":1,\"meta\":{\"dbms\":\"cockroach\",\"level\":\"SERIALIZABLE\"}}");
        CliTest.Result unknown = CliTest.run("check", other.toString());
        assertEquals(2, unknown.code(), unknown.toString());
        assertTrue(unknown.err().startsWith("txfuzz: unknown DBMS 'cockroach' in the history's meta.dbms; known: h2"), unknown.err());
        assertTrue(unknown.err().contains("--dbms none"), unknown.err());
        assertEquals(1, unknown.err().lines().count(), unknown.err());
    }

    @Test
    void theCompactFormIsCheckedAsItsJsonIsAndABrokenOneIsOneLine() throws Exception {
        Path json = history(null);
        Path compact = dir.resolve("h.txh");
        txfuzz.history.CompactHistory.write(txfuzz.history.HistoryJson.read(json), compact);
        CliTest.Result fromJson = CliTest.run("check", json.toString(), "--level", "REPEATABLE_READ");
        CliTest.Result fromCompact = CliTest.run("check", compact.toString(), "--level", "REPEATABLE_READ");
        assertEquals(fromJson.code(), fromCompact.code(), fromCompact.toString());
        assertEquals(fromJson.out().replace(json.toString(), "H").replaceAll("in [0-9.]+s", ""),
                fromCompact.out().replace(compact.toString(), "H").replaceAll("in [0-9.]+s", ""));
        byte[] all = Files.readAllBytes(compact);
        Files.write(compact, java.util.Arrays.copyOf(all, all.length / 2));
        CliTest.Result cut = CliTest.run("check", compact.toString(), "--level", "REPEATABLE_READ");
        assertEquals(2, cut.code(), cut.toString());
        assertEquals(1, cut.err().lines().count(), cut.err());
        assertTrue(cut.err().contains("cut short") || cut.err().contains("corrupt at byte"), cut.err());
    }
}
