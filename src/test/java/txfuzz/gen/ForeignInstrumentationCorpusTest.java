package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import txfuzz.campaign.Corpus;
import txfuzz.campaign.Corpus.Entry;
import txfuzz.campaign.Judge;
import txfuzz.campaign.Oracles;
import txfuzz.dbms.Targets;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.imports.Importer;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;
import txfuzz.reduce.Stripped;
import txfuzz.reduce.TrackingStripper;

/**
 * The corpus's hand-instrumented cases, as plain programs (their tracking taken out by
 * {@link TrackingStripper}), written as a plain schedule (the format bug reports use), read back by
 * {@code txfuzz import}'s {@link Importer} and instrumented again by {@link ForeignInstrumentation}: replayed as
 * {@code Corpus.replay} replays the entry, on the engine the entry was checked on, with the entry's
 * oracles, the foreign case must get the violations the hand-instrumented one gets today.
 */
class ForeignInstrumentationCorpusTest {
    private static final txfuzz.corpus.CorpusEngines ENGINES = new txfuzz.corpus.CorpusEngines();

    /**
     * Entries whose re-instrumented case is known to differ, each with why; the test fails when one of
     * them matches (then it comes off this list).
     */
    private static final Map<String, String> KNOWN_DIFFERENCES = Map.of(
            // Hermitage's P4 has both transactions set v = 11. The hand case tags T2's UPDATE unconditionally
            // (CONCAT), which makes it a real write; the instrumentation tags only rows whose values change on
            // an engine that does not write an unchanged row (Feature.UNCHANGED_ROWS_NOT_WRITTEN), so T2 writes
            // nothing, its match read is a current read of T1's version (IsoRel §3.4), and there is no lost
            // update in what InnoDB did. With different values it is the documented lost update
            // (ForeignInstrumentationAnomalyTest).
            "maria-rr-p4", "T2 sets the value T1 wrote: InnoDB writes nothing");

    private static Executor executor(Entry e) {
        return ENGINES.executor(e);
    }

    @AfterAll
    static void closeEngines() {
        ENGINES.close();
    }

    /**
     * A hand-written case may read rows with a SELECT of their (rid, wl) alone, which has no plain form
     * to strip to: its plain form is the same read of every column, {@code SELECT *}, recorded beside it.
     */
    private static TestCase withRowReadsAsStar(TestCase c) {
        List<txfuzz.model.Txn> txns = new ArrayList<>();
        for (txfuzz.model.Txn t : c.transactions()) {
            List<txfuzz.model.Stmt> out = new ArrayList<>();
            for (txfuzz.model.Stmt s : t.statements()) {
                var m = ROW_READ.matcher(s.sql());
                if (s.tracking() != null && s.tracking().role() == txfuzz.model.Tracking.Role.READ && s.tracking().plain() == null && m.matches()) {
                    s = s.withTracking(s.tracking().withPlain("SELECT *" + m.group(2)));
                }
                out.add(s);
            }
            txns.add(new txfuzz.model.Txn(t.id(), out));
        }
        return c.withTransactions(txns, c.order());
    }

    /** {@code SELECT x.rid, x.wl FROM …}: a read of the rows' (rid, wl) alone. */
    private static final java.util.regex.Pattern ROW_READ = java.util.regex.Pattern.compile("SELECT (\\w+\\.)?rid, (?:\\w+\\.)?wl( FROM .*)",
            java.util.regex.Pattern.DOTALL);

    /**
     * {@code plain} written as a plain schedule (the reproducer's format) and imported again without {@code --dbms}: the
     * schedule's own header lines give the DBMS, the mode (SQLite's immediate, HSQLDB's locks, MariaDB's snapshot-isolation)
     * and the level. IllegalStateException when the import skips it or reads another DBMS, mode or level.
     */
    static TestCase viaImport(TestCase plain, Entry e) {
        String text = txfuzz.report.ScheduleText.render(plain, e.id());
        Importer.FileImport f = Importer.read(text, e.id() + ".txt", txfuzz.model.CaseSource.Format.SCHEDULE,
                Importer.Options.defaults(), java.nio.file.Path.of(e.id() + ".txt"));
        if (f.cases().size() != 1) {
            throw new IllegalStateException("the plain schedule does not import: " + f.skipped());
        }
        TestCase c = f.cases().get(0).testCase();
        if (!c.dbms().equals(plain.dbms()) || !c.mode().equals(plain.mode()) || c.isolation() != plain.isolation()) {
            throw new IllegalStateException("the plain schedule imports as " + c.dbms() + " " + c.mode() + " " + c.isolation() + ", not "
                    + plain.dbms() + " " + plain.mode() + " " + plain.isolation());
        }
        return c;
    }

    static List<String> labels(List<Violation> violations) {
        Set<String> out = new TreeSet<>();
        for (Violation v : violations) {
            out.add(v.oracle() + "/" + v.kind().label() + "/" + v.classification().label());
        }
        return List.copyOf(out);
    }

    @Test
    void everyHandInstrumentedEntryGetsItsVerdictFromItsPlainForm() throws Exception {
        String engines = System.getProperty("foreign.engines", "h2,postgres,hsqldb,derby,sqlite,duckdb,mariadb");
        List<String> rows = new ArrayList<>();
        List<String> mismatches = new ArrayList<>();
        int tracked = 0;
        int matched = 0;
        for (Entry e : Corpus.load().entries()) {
            if (!List.of(engines.split(",")).contains(e.engine())) {
                continue;
            }
            TestCase hand = e.testCase();
            if (!TrackingStripper.tracked(hand)) {
                continue; // a plain corpus case: no hand-instrumented verdict to compare with
            }
            tracked++;
            Stripped s = TrackingStripper.strip(withRowReadsAsStar(hand));
            if (!(s instanceof Stripped.Plain plain)) {
                rows.add(e.id() + ": no plain form (" + s + ")");
                if (!KNOWN_DIFFERENCES.containsKey(e.id())) {
                    mismatches.add(e.id());
                }
                continue;
            }
            // the plain form as a bug report would paste it, read back by txfuzz import: the path a user's plain schedule takes
            TestCase imported;
            try {
                imported = viaImport(plain.plain(), e);
            } catch (IllegalStateException notImported) {
                rows.add(e.id() + ": " + notImported.getMessage());
                if (!KNOWN_DIFFERENCES.containsKey(e.id())) {
                    mismatches.add(e.id());
                }
                continue;
            }
            ForeignInstrumentation.Instrumented fi = ForeignInstrumentation.instrument(imported, Targets.engine(e.engine()).dialect());
            if (!fi.rowTrackingComplete()) {
                rows.add(e.id() + ": " + fi.notApplicableBecause().orElseThrow());
                mismatches.add(e.id());
                continue;
            }
            Executor ex = executor(e);
            TestCase c = fi.testCase();
            Trace trace = ex.run(c);
            List<String> got = labels(new Judge(Oracles.create(e.oracles(), txfuzz.oracle.OracleContext.of(ex.target(), txfuzz.exec.ExecutorConfig.defaults())).oracles(), ex).judge(c, trace));
            boolean same = got.equals(e.today());
            rows.add(e.id() + " (" + e.engine() + " " + e.level() + "): " + (same ? "same " + got : "hand " + e.today() + ", foreign " + got));
            if (same) {
                matched++;
                if (KNOWN_DIFFERENCES.containsKey(e.id())) {
                    mismatches.add(e.id() + " now matches: take it off KNOWN_DIFFERENCES");
                }
            } else if (!KNOWN_DIFFERENCES.containsKey(e.id())) {
                mismatches.add(e.id());
            }
        }
        rows.forEach(r -> System.out.println("foreign-corpus " + r));
        System.out.println("foreign-corpus matched " + matched + " of " + tracked + " hand-instrumented entries");
        assertTrue(tracked > 0, "the corpus has hand-instrumented entries on " + engines);
        assertEquals(List.of(), mismatches, "entries whose plain form, instrumented, gets other violations than the hand-instrumented case");
    }
}
