package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.TestServers;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.model.IsolationLevel;

/**
 * A finding cites the manual of the PostgreSQL release under test (issue 22 item 9): a PostgreSQL
 * 18.6 server's documented behaviour links docs/18/, not the pages of another release or "current".
 */
class PostgresManualVersionTest {
    private static final Pattern MANUAL = Pattern.compile("postgresql\\.org/docs/([^/]+)/");

    @Test
    void aServerOfAnotherMajorReleaseCitesItsOwnManual() throws Exception {
        try (Target t = Targets.create("postgres", TargetOptions.version("18.6"))) {
            assertTrue(t.version().startsWith("PostgreSQL 18.6 "), t.version());
            List<String> cited = manualsCited(t);
            assertFalse(cited.isEmpty(), "every level cites the manual");
            cited.forEach(v -> assertEquals("18", v, "the manual cited for PostgreSQL 18.6"));
        }
    }

    @Test
    void theBundledServerCitesTheManualOfItsRelease() throws Exception {
        try (Target t = TestServers.open("postgres")) {
            String major = Binaries.bundled().version().split("\\.")[0];
            assertTrue(t.version().startsWith("PostgreSQL " + major + "."), t.version());
            List<String> cited = manualsCited(t);
            assertFalse(cited.isEmpty());
            cited.forEach(v -> assertEquals(major, v, "the manual cited for " + t.version()));
        }
    }

    /** The release of every manual page the target's profile cites, at every level. */
    private static List<String> manualsCited(Target t) {
        List<String> versions = new ArrayList<>();
        for (IsolationLevel level : t.isolationLevels()) {
            LevelSemantics s = t.profile("default").at(level);
            for (String ref : new String[] {s.reference(), s.anomalyReference()}) {
                if (ref == null) {
                    continue;
                }
                Matcher m = MANUAL.matcher(ref);
                boolean any = false;
                while (m.find()) {
                    versions.add(m.group(1));
                    any = true;
                }
                assertTrue(any, level + " cites no page of the PostgreSQL manual: " + ref);
            }
        }
        return versions;
    }
}
