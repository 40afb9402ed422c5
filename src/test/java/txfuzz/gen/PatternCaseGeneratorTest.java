package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import txfuzz.dbms.TestServers;
import txfuzz.campaign.InstrumentationSelfCheck;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternCatalogue;
import txfuzz.gen.pattern.PatternOp;
import txfuzz.model.IsolationLevel;
import txfuzz.model.PatternOrigin;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;

/** Pattern cases on the in-process engines; PostgreSQL and MariaDB in {@link PatternCaseServerTest}. */
class PatternCaseGeneratorTest {
    static final int SEEDS = 20;
    /**
     * Derby and DuckDB create tables slowly: they may stop early, after every pattern ran at least
     * once. All 20 seeds everywhere: -Dgen.pattern.budgetMs=300000
     */
    static final long BUDGET_MS = Long.getLong("gen.pattern.budgetMs", 2_000);

    static List<String> inProcess() {
        return Targets.names().stream().filter(n -> !Targets.engine(n).server()).toList();
    }

    /** Generation needs only the dialect: every engine, servers too, without starting any. */
    @Test
    void everyPatternHasItsShapeOnEveryDialectInstrumentedAndPlain() throws Exception {
        for (Engine e : Targets.engines()) {
            for (AnomalyPattern p : PatternCaseChecks.patterns()) {
                for (long seed = 0; seed < 5; seed++) {
                    TestCase plain = new PatternCaseGenerator(PatternCaseChecks.PLAIN).generate(p, e.name(), e.dialect(), e.defaultIsolationLevel(),
                            e.modes().get(0), 11, seed);
                    TestCase tracked = new PatternCaseGenerator(PatternCaseChecks.INSTRUMENTED).generate(p, e.name(), e.dialect(),
                            e.defaultIsolationLevel(), e.modes().get(0), 11, seed);
                    PatternCaseChecks.checkShape(p, plain);
                    PatternCaseChecks.checkShape(p, tracked);
                    PatternCaseChecks.checkTwins(plain, tracked);
                    for (PatternOrigin.Item item : tracked.origin().items().values()) {
                        assertTrue(item.rid() != null, e.name() + " " + p.name() + ": an instrumented item has its rid");
                    }
                    plain.origin().items().values().forEach(i -> assertEquals(null, i.rid()));
                }
            }
        }
    }

    @Test
    void theSameSeedGivesTheSameCase() {
        Engine h2 = Targets.engine("h2");
        AnomalyPattern p = PatternCatalogue.bundled().byName("write-skew").orElseThrow();
        PatternCaseGenerator gen = new PatternCaseGenerator(PatternCaseChecks.INSTRUMENTED);
        for (long i = 0; i < 10; i++) {
            assertEquals(gen.generate(p, "h2", h2.dialect(), IsolationLevel.READ_COMMITTED, "default", 3, i),
                    gen.generate(p, "h2", h2.dialect(), IsolationLevel.READ_COMMITTED, "default", 3, i));
        }
    }

    /** MariaDB's cases begin with its variants now and then; the in-process engines' with plain BEGIN. */
    @Test
    void beginVariantsComeFromTheEngine() {
        AnomalyPattern p = PatternCatalogue.bundled().byName("lost-update").orElseThrow();
        Engine mariadb = Targets.engine("mariadb");
        long variants = 0;
        for (long i = 0; i < 20; i++) {
            TestCase c = new PatternCaseGenerator(PatternCaseChecks.PLAIN).generate(p, "mariadb", mariadb.dialect(), IsolationLevel.REPEATABLE_READ,
                    "default", 5, i);
            variants += c.transactions().stream().filter(t -> t.statements().get(0).beginVariant().isPresent()).count();
            TestCase h2 = new PatternCaseGenerator(PatternCaseChecks.PLAIN).generate(p, "h2", Targets.engine("h2").dialect(),
                    IsolationLevel.READ_COMMITTED, "default", 5, i);
            h2.transactions().forEach(t -> assertEquals(Stmt.PLAIN_BEGIN, t.statements().get(0).sql()));
        }
        assertTrue(variants > 5 && variants < 35, "variants in 40 transactions: " + variants);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inProcess")
    void fewStatementsAreInvalid(String name) throws Exception {
        try (Target target = TestServers.open(name)) {
            PatternCaseChecks.Validity v = PatternCaseChecks.run(target, target.defaultIsolationLevel(), SEEDS, BUDGET_MS);
            System.out.print(v.summary());
            assertEquals(0, v.setupFailed, v.summary());
            assertTrue(v.share() < 0.10, v.summary());
        }
    }

    /** Rows added to the setup (a table short of rows for the items) keep the schema's constraints: every setup loads. */
    @Test
    void setupsLoadOnH2AcrossOtherSeeds() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            for (long seed : new long[] {17, 101}) {
                PatternCaseChecks.Validity v = PatternCaseChecks.run(h2, IsolationLevel.READ_COMMITTED, seed, SEEDS, BUDGET_MS);
                assertEquals(0, v.setupFailed, v.summary());
            }
        }
    }

    /**
     * Condition alignment works: in most lost-update cases on H2 at READ COMMITTED, every statement
     * of the pattern reads or writes its item's row (the read returns its rid, the write's post-read
     * shows it). And each case's plain twin lines up with it for the instrumentation self-check.
     */
    @Test
    void lostUpdateStatementsTouchTheirItemOnH2() throws Exception {
        AnomalyPattern p = PatternCatalogue.bundled().byName("lost-update").orElseThrow();
        int cases = 30;
        int aimed = 0;
        int agreeing = 0;
        try (Target h2 = Targets.create("h2"); Executor executor = new Executor(h2, ExecutorConfig.defaults())) {
            for (long i = 0; i < cases; i++) {
                TestCase c = new PatternCaseGenerator(PatternCaseChecks.INSTRUMENTED).generate(p, "h2", h2.dialect(), IsolationLevel.READ_COMMITTED,
                        "default", 17, i);
                Trace trace = executor.run(c);
                if (everyStepTouchesItsItem(p, c, trace)) {
                    aimed++;
                }
                // the campaign's instrumentation self-check can compare the plain twin with it
                TestCase plain = new PatternCaseGenerator(PatternCaseChecks.PLAIN).generate(p, "h2", h2.dialect(), IsolationLevel.READ_COMMITTED,
                        "default", 17, i);
                InstrumentationSelfCheck.Result twins = InstrumentationSelfCheck.compare(c, trace, plain, executor.run(plain));
                assertTrue(twins.comparable(), "case " + i + ": " + twins.differences());
                agreeing += twins.agrees() ? 1 : 0;
            }
        }
        System.out.printf("lost-update on h2: every statement touched its item in %d of %d cases; plain twin ran alike in %d%n", aimed, cases,
                agreeing);
        assertTrue(aimed >= cases * 2 / 3, aimed + " of " + cases);
    }

    /**
     * A predicate read covers the row the pattern inserts: in phantom-insert at READ COMMITTED on H2,
     * T1's first predicate read misses x (not there yet) and its second, after T2 committed the
     * insert, returns it.
     */
    @Test
    void phantomInsertsSecondPredicateReadSeesTheInsertedRowOnH2() throws Exception {
        AnomalyPattern p = PatternCatalogue.bundled().byName("phantom-insert").orElseThrow();
        int cases = 20;
        int seen = 0;
        try (Target h2 = Targets.create("h2"); Executor executor = new Executor(h2, ExecutorConfig.defaults())) {
            for (long i = 0; i < cases; i++) {
                TestCase c = new PatternCaseGenerator(PatternCaseChecks.INSTRUMENTED).generate(p, "h2", h2.dialect(), IsolationLevel.READ_COMMITTED,
                        "default", 29, i);
                Trace trace = executor.run(c);
                String rid = c.origin().items().get("x").rid();
                List<String> first = ridsRead(c, trace, c.origin().steps().get(0));
                List<String> second = ridsRead(c, trace, c.origin().steps().get(3));
                assertTrue(!first.contains(rid), "case " + i + ": x is not there yet");
                if (second.contains(rid)) {
                    seen++;
                }
            }
        }
        System.out.printf("phantom-insert on h2: the second predicate read saw the inserted row in %d of %d cases%n", seen, cases);
        assertTrue(seen >= cases * 2 / 3, seen + " of " + cases);
    }

    private static List<String> ridsRead(TestCase c, Trace trace, StmtRef ref) {
        ExecutedStmt e = trace.executed(ref).orElseThrow();
        return PatternCaseChecks.ridsOf(c.stmt(ref).tracking(), e.result().rows());
    }

    private static boolean everyStepTouchesItsItem(AnomalyPattern p, TestCase c, Trace trace) {
        for (int k = 0; k < p.ops().size(); k++) {
            PatternOp op = p.ops().get(k);
            if (op.type().ends()) {
                continue;
            }
            String rid = c.origin().items().get(op.reads().get(0).item()).rid();
            StmtRef step = c.origin().steps().get(k);
            Stmt s = c.stmt(step);
            // a write's rows are in the post-read of its tag, the next statement of its group
            StmtRef seen = s.tracking().role() == Tracking.Role.WRITE && s.kind() != StmtKind.DELETE ? new StmtRef(step.txn(), step.index() + 1) : step;
            ExecutedStmt e = trace.executed(seen).orElse(null);
            if (e == null || e.result().failed() || !PatternCaseChecks.ridsOf(c.stmt(seen).tracking(), e.result().rows()).contains(rid)) {
                return false;
            }
        }
        return true;
    }
}
