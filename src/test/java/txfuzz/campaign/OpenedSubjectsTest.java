package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Subject;
import txfuzz.dbms.Target;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.OracleContext;
import txfuzz.oracle.OracleRegistration;

/**
 * A campaign's subjects are all closed on every exit (a subject that cannot open, a close that fails,
 * a second close from the shutdown hook), and so are its oracles; a campaign over two real subjects
 * generates what both understand and runs on the first.
 */
class OpenedSubjectsTest {
    /** A real engine whose close() is counted. */
    private static final class Counted extends DelegatingTarget {
        final AtomicInteger closes = new AtomicInteger();
        final boolean failOnClose;

        Counted(Target real, boolean failOnClose) {
            super(real);
            this.failOnClose = failOnClose;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
            real.close();
            if (failOnClose) {
                throw new IllegalStateException("cannot stop it");
            }
        }
    }

    @Test
    void aSubjectThatCannotOpenClosesThoseOpenedBeforeIt() {
        List<Counted> made = new ArrayList<>();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OpenedSubjects.open(
                Subject.parseList("h2,hsqldb,derby"), s -> {
                    if (s.dbms().equals("derby")) {
                        throw new IllegalArgumentException("derby does not start");
                    }
                    Counted c = new Counted(s.open(null), false);
                    made.add(c);
                    return c;
                }));
        assertEquals("derby does not start", e.getMessage());
        assertEquals(2, made.size());
        made.forEach(c -> assertEquals(1, c.closes.get(), "closed once: " + c.name()));
    }

    @Test
    void closingClosesEveryOneOnceEvenWhenOneFails() {
        List<Counted> made = new ArrayList<>();
        OpenedSubjects opened = OpenedSubjects.open(Subject.parseList("h2,hsqldb,h2:prepared"), s -> {
            Counted c = new Counted(s.open(null), s.dbms().equals("hsqldb"));
            made.add(c);
            return c;
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, opened::close);
        assertEquals("cannot stop it", e.getMessage());
        made.forEach(c -> assertEquals(1, c.closes.get(), "every subject closed, also after the failing one: " + c.name()));
        opened.close(); // the shutdown hook after the normal exit: nothing more
        made.forEach(c -> assertEquals(1, c.closes.get(), "closed once: " + c.name()));
        assertEquals(List.of("h2", "hsqldb", "h2:prepared"), opened.labels());
    }

    @Test
    void anOracleSetClosesEveryOracleAndAFailingFactoryClosesThoseMade() {
        List<String> closed = new ArrayList<>();
        OracleRegistration a = OracleRegistration.of("a", ctx -> closing("a", closed), List.of());
        OracleRegistration b = OracleRegistration.of("b", ctx -> closing("b", closed), List.of());
        OracleRegistration broken = OracleRegistration.of("broken", ctx -> {
            throw new IllegalStateException("cannot make it");
        }, List.of());
        try (Target h2 = Subject.parse("h2").open(null)) {
            OracleContext context = OracleContext.of(h2, ExecutorConfig.defaults());
            new OracleSet(List.of(a, b), context).close();
            assertEquals(List.of("b", "a"), closed, "the last made is closed first");
            closed.clear();
            assertThrows(IllegalStateException.class, () -> new OracleSet(List.of(a, broken), context));
            assertEquals(List.of("a"), closed, "what was made before the failure is closed");
        }
    }

    private static Oracle closing(String name, List<String> closed) {
        return new Oracle() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<? extends txfuzz.oracle.ViolationKind> kinds() {
                return List.of();
            }

            @Override
            public txfuzz.oracle.Verdict judge(txfuzz.oracle.Run run, txfuzz.exec.Executor executor) {
                return txfuzz.oracle.Verdict.clean(name);
            }

            @Override
            public void close() {
                closed.add(name);
            }
        };
    }

    @Test
    void theContextPairsLevelsByPromiseNotByName() {
        try (OpenedSubjects opened = OpenedSubjects.open(Subject.parseList("h2,hsqldb:mvcc,hsqldb:locks"), s -> s.open(null))) {
            OracleContext c = opened.context(ExecutorConfig.defaults());
            OracleContext.Opened mvcc = c.subjects().get(1);
            OracleContext.Opened locks = c.subjects().get(2);
            // H2 SNAPSHOT is snapshot isolation; so are HSQLDB MVCC's REPEATABLE READ and SERIALIZABLE (the weaker is taken)
            assertEquals(java.util.Optional.of(IsolationLevel.REPEATABLE_READ), c.levelOf(mvcc, IsolationLevel.SNAPSHOT, "default"));
            assertEquals(java.util.Optional.empty(), c.levelOf(locks, IsolationLevel.SNAPSHOT, "default"), "two-phase locking keeps no SI");
            assertEquals(1, c.unpaired(IsolationLevel.SNAPSHOT, "default").size(), c.unpaired(IsolationLevel.SNAPSHOT, "default").toString());
            assertTrue(c.unpaired(IsolationLevel.SNAPSHOT, "default").get(0).startsWith("hsqldb:locks has no level that keeps snapshot isolation"));
            assertEquals(java.util.Optional.of(IsolationLevel.READ_COMMITTED), c.levelOf(locks, IsolationLevel.READ_COMMITTED, "default"));
            assertEquals(c.subjects().get(0).target().dialect().intersect(mvcc.target().dialect()).intersect(locks.target().dialect()), c.dialect());
        }
    }

    /** Where several levels keep the promise, the same-named one is taken: REPEATABLE READ is not compared with READ COMMITTED. */
    @Test
    void ofTheLevelsKeepingAPromiseTheSameNameIsTaken() {
        try (OpenedSubjects opened = OpenedSubjects.open(Subject.parseList("hsqldb:mvcc,hsqldb:mvcc:prepared"), s -> s.open(null))) {
            OracleContext c = opened.context(ExecutorConfig.defaults());
            OracleContext.Opened other = c.subjects().get(1);
            assertSame(other.target().promise(IsolationLevel.REPEATABLE_READ, "mvcc").promise(),
                    other.target().promise(IsolationLevel.SERIALIZABLE, "mvcc").promise(), "both levels keep snapshot isolation");
            assertEquals(java.util.Optional.of(IsolationLevel.SERIALIZABLE), c.levelOf(other, IsolationLevel.SERIALIZABLE, "mvcc"));
            assertEquals(java.util.Optional.of(IsolationLevel.REPEATABLE_READ), c.levelOf(other, IsolationLevel.REPEATABLE_READ, "mvcc"));
        }
    }

    @Test
    void postgresRepeatableReadIsSnapshotIsolationAndMariadbsIsNot() {
        var pg = txfuzz.dbms.Targets.engine("postgres");
        var maria = txfuzz.dbms.Targets.engine("mariadb");
        var h2 = txfuzz.dbms.Targets.engine("h2");
        assertEquals(h2.promise(IsolationLevel.SNAPSHOT, "default").promise(), pg.promise(IsolationLevel.REPEATABLE_READ, "default").promise());
        assertFalse(maria.promise(IsolationLevel.REPEATABLE_READ, "default").promise() == txfuzz.dbms.Promise.SNAPSHOT_ISOLATION);
        assertSame(txfuzz.dbms.Promise.SNAPSHOT_ISOLATION, maria.promise(IsolationLevel.REPEATABLE_READ, "snapshot-isolation").promise());
        assertTrue(maria.promise(IsolationLevel.REPEATABLE_READ, "default").manual().startsWith("https://mariadb.com/"));
    }

    @Test
    void aCampaignOverTwoSubjectsRunsCasesBothUnderstand(@org.junit.jupiter.api.io.TempDir java.nio.file.Path out) {
        try (OpenedSubjects opened = OpenedSubjects.open(Subject.parseList("h2,sqlite"), s -> s.open(null))) {
            CampaignConfig config = new CampaignConfig(List.of(IsolationLevel.SERIALIZABLE), List.of(), List.of("wss", "explicit"), 6, null, 7L, out,
                    GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, java.time.Duration.ZERO);
            OracleContext context = opened.context(config.executor());
            Summary s = new Campaign(context, config, new java.io.PrintStream(java.io.OutputStream.nullOutputStream())).run();
            assertEquals(6, s.cases() + s.invalidCases(), s.toString());
            assertEquals("h2", s.dbms(), "the first subject is the primary");

            // the same seed's cases for H2 alone lock rows with FOR UPDATE; for H2 and SQLite (which has no FOR UPDATE) never
            Target h2 = opened.primary();
            CaseMaker alone = new CaseMaker(h2, h2.dialect(), h2.beginVariants(), config, GenConfig.defaults());
            CaseMaker both = new CaseMaker(h2, context.dialect(), context.beginVariants(), config, GenConfig.defaults());
            java.util.function.Predicate<txfuzz.model.TestCase> locks = c -> c.transactions().stream().flatMap(t -> t.statements().stream())
                    .anyMatch(st -> st.sql().toUpperCase(java.util.Locale.ROOT).contains("FOR UPDATE"));
            long aloneLocking = 0;
            long bothLocking = 0;
            for (long i = 0; i < 200; i++) {
                aloneLocking += locks.test(alone.make(IsolationLevel.SERIALIZABLE, "default", i)) ? 1 : 0;
                bothLocking += locks.test(both.make(IsolationLevel.SERIALIZABLE, "default", i)) ? 1 : 0;
            }
            assertTrue(aloneLocking > 0, "H2's own cases use FOR UPDATE (precondition)");
            assertEquals(0, bothLocking);
        }
    }
}
