package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.TrackedGroups;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/** How an instrumented case splits into program statements with companions, and where version-set reads go. */
@Tag("unit")
class StatementGroupsTest {

    /** T1: a tracked read with a companion read, then a DELETE as tag-update, post-read, delete, post-read. T2: an INSERT. */
    private static TestCase instrumented() {
        Txn t1 = new Txn(1, List.of(Stmt.begin(),
                Stmt.of(StmtKind.SELECT, "SELECT x.rid, x.wl FROM t x WHERE x.c IN (SELECT c FROM u)", Tracking.read(List.of("t"), false, null)),
                Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM u", Tracking.companionRead("u", "true")),
                Stmt.of(StmtKind.UPDATE, "UPDATE t SET wl = wl || ',1.3' WHERE c = 1", Tracking.tag("t", "1.3")),
                Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t WHERE wl LIKE '%,1.3'", Tracking.postRead("t", "1.3")),
                Stmt.of(StmtKind.DELETE, "DELETE FROM t WHERE wl LIKE '%,1.3'", Tracking.write("t", "1.3", List.of(), true)),
                Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t WHERE wl LIKE '%,1.3'", Tracking.postRead("t", "1.3")),
                Stmt.commit()));
        Txn t2 = new Txn(2, List.of(Stmt.begin(),
                Stmt.of(StmtKind.INSERT, "INSERT INTO t (c, rid, wl) VALUES (5, '2.1.0', ',2.1')", Tracking.write("t", "2.1", List.of("2.1.0"), false)),
                Stmt.commit()));
        return new TestCase(TestCase.FORMAT_VERSION, "h2", 1, 0, IsolationLevel.READ_COMMITTED, "default", ExecutionMode.PLAIN,
                List.of("t", "u"), List.of("CREATE TABLE t (c INT, rid VARCHAR(1000), wl VARCHAR(1000))"), List.of(t1, t2),
                List.of(1, 1, 1, 2, 2, 1, 1, 1, 1, 2, 1));
    }

    @Test
    void companionsGoWithTheirStatement() {
        List<TrackedGroups.Group> g = StatementGroups.of(instrumented()).groups();
        assertEquals(3, g.size());
        assertEquals(new StmtRef(1, 1), g.get(0).main());
        assertEquals(List.of(new StmtRef(1, 1), new StmtRef(1, 2)), g.get(0).members());
        assertEquals(new StmtRef(1, 5), g.get(1).main());
        assertEquals(List.of(new StmtRef(1, 3), new StmtRef(1, 4), new StmtRef(1, 5), new StmtRef(1, 6)), g.get(1).members());
        assertEquals(new StmtRef(2, 1), g.get(2).main());
    }

    @Test
    void oneVersionSetReadOfEveryTablePrecedesEachGroupAndStripsBack() {
        TestCase c = instrumented();
        TestCase with = VersionSetReads.add(c);
        List<TrackedGroups.Group> g = StatementGroups.of(with).groups();
        assertEquals(3, g.size());
        for (TrackedGroups.Group group : g) {
            assertEquals(1, group.vsrs().size(), group.toString());
            assertEquals("SELECT 't', rid, wl FROM t UNION ALL SELECT 'u', rid, wl FROM u", with.stmt(group.vsrs().get(0)).sql());
            assertEquals(List.of("t", "u"), with.stmt(group.vsrs().get(0)).tracking().tables());
            // the version-set read is submitted right before the group's first statement
            List<StmtRef> order = with.submittedOrder();
            int first = order.indexOf(group.members().get(0));
            assertEquals(group.vsrs(), order.subList(first - 1, first));
        }
        assertEquals(with, VersionSetReads.add(with)); // exactly one read per statement, however often added
        assertEquals(c, VersionSetReads.strip(with));
    }

    @Test
    void aCaseOfOneTableKeepsThePlainRead() {
        TestCase c = instrumented();
        TestCase one = c.withSetup(List.of("t"), c.setup());
        TestCase with = VersionSetReads.add(one);
        TrackedGroups.Group group = StatementGroups.of(with).groups().get(0);
        assertEquals("SELECT rid, wl FROM t", with.stmt(group.vsrs().get(0)).sql());
    }
}
