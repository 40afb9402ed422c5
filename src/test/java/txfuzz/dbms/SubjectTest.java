package txfuzz.dbms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import txfuzz.model.ExecutionMode;

/** Subject specs: what each part means, the canonical label, and one-line errors for what is wrong. Parsing starts nothing. */
class SubjectTest {
    @Test
    void partsOfASpec() {
        Subject pg = Subject.parse("postgres@15.17");
        assertEquals("postgres", pg.dbms());
        assertEquals("15.17", pg.version());
        assertNull(pg.mode());
        assertNull(pg.execution());

        Subject hs = Subject.parse("hsqldb:mvlocks");
        assertEquals("mvlocks", hs.mode());

        assertEquals(ExecutionMode.PREPARED, Subject.parse("h2:prepared").execution());
        assertEquals(ExecutionMode.PLAIN, Subject.parse("h2:plain").execution());

        Subject h2pg = Subject.parse("h2+mode=postgresql");
        assertEquals(Map.of("MODE", "PostgreSQL"), h2pg.settings(), "the engine's own spelling of key and value");
        assertEquals("h2+MODE=PostgreSQL", h2pg.label());

        Subject all = Subject.parse("hsqldb@2.7.2:mvcc:prepared+sql.syntax_pgs=true");
        assertEquals("hsqldb@2.7.2:mvcc:prepared+sql.syntax_pgs=true", all.label());
        assertEquals(all, Subject.parse(all.label()), "a label parses back to the same subject");

        assertEquals(Map.of("innodb_snapshot_isolation", "ON"), Subject.parse("mariadb+innodb_snapshot_isolation=on").settings());
    }

    @Test
    void aSubjectsOptionsTakeTheServerOnlyWithoutAVersionOfItsOwn() {
        TargetOptions byUrl = new TargetOptions("jdbc:postgresql://db/x", "me", null, null);
        assertEquals("jdbc:postgresql://db/x", Subject.parse("postgres").options(byUrl).url());
        assertNull(Subject.parse("postgres@15.17").options(byUrl).url(), "@version: txfuzz starts that version itself");
        assertEquals("15.17", Subject.parse("postgres@15.17").options(byUrl).version());
        assertNull(Subject.parse("h2").options(byUrl).url(), "an in-process engine takes no server");
        assertEquals(Map.of("enable_seqscan", "off"), Subject.parse("postgres+enable_seqscan=off").options(null).settings());
    }

    @Test
    void badSpecsAreOneLineErrors() {
        assertMessage("malformed subject", "h2@");
        assertMessage("malformed subject", "h2 +MODE=PostgreSQL");
        assertMessage("no subject named", "");
        assertMessage("malformed subject", "h2:");
        assertMessage("unknown DBMS 'oracle'", "oracle@19");
        assertMessage("unknown mode 'mvlock'", "hsqldb:mvlock");
        assertMessage("two execution styles", "h2:plain:prepared");
        assertMessage("unknown setting 'MODEX' for h2; it takes MODE", "h2+MODEX=PostgreSQL");
        assertMessage("setting MODE of h2 takes", "h2+MODE=Postgres");
        assertMessage("unknown setting 'x' for derby; it takes none", "derby+x=1");
        assertMessage("named twice", "h2,h2");
        assertEquals(List.of(Subject.parse("h2"), Subject.parse("h2:prepared")), Subject.parseList("h2, h2:prepared"));
    }

    @Test
    void settingsAreCheckedWhereverATargetIsCreated() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Targets.create("derby", TargetOptions.none().withSettings(Map.of("x", "1"))));
        assertTrue(e.getMessage().contains("unknown setting 'x' for derby"), e.getMessage());
    }

    private static void assertMessage(String expected, String spec) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Subject.parseList(spec));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }
}
