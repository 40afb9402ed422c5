package txfuzz.oracle.equiv;

import java.util.List;
import java.util.Map;
import txfuzz.model.StmtRef;

/**
 * The paper's running example (OSDI 2023 Fig. 1(a), instrumented in Fig. 5, outputs in Fig. 6),
 * built by hand. t0(pkey, vkey) = {(1, 20)}; t1(pkey, vkey, c0) = {(2, 43, 8), (3, 43, 53)}.
 * T1.S3's AWR returns two rows although its BWR returned one: the MySQL bug.
 */
final class PaperExample {
    static final StmtRef T0S1 = new StmtRef(0, 1);
    static final StmtRef T0S2 = new StmtRef(0, 2);
    static final StmtRef T1S1 = new StmtRef(1, 1);
    static final StmtRef T1S2 = new StmtRef(1, 2);
    static final StmtRef T1S3 = new StmtRef(1, 3);

    private PaperExample() {
    }

    static Item t0(int k, int v) {
        return Item.of("t0", k, v);
    }

    static Item t1(int k, int v) {
        return Item.of("t1", k, v);
    }

    static Execution execution() {
        List<StmtExec> stmts = List.of(
                StmtExec.write(0, 1, "t0").sql("update t0 set vkey = 162").predicate()
                        .vsr("t0", t0(1, 20)).bwr(t0(1, 20)).awr(t0(1, 162)).build(),
                StmtExec.read(0, 2).sql("select * from t1").predicate()
                        .vsr("t1", t1(2, 43), t1(3, 43)).reads(t1(2, 43), t1(3, 43)).build(),
                StmtExec.read(1, 1).sql("select * from t0").predicate()
                        .vsr("t0", t0(1, 20)).reads(t0(1, 20)).build(),
                // T0.S3 commit happens here
                StmtExec.read(1, 2).sql("select * from t1 where t1.c0 <= (select min(vkey) from t0)").predicate()
                        .vsr("t0", t0(1, 20)).vsr("t1", t1(2, 43), t1(3, 43)).reads(t1(2, 43)).build(),
                StmtExec.write(1, 3, "t1").sql("update t1 set vkey = 63 where t1.c0 <= (select min(vkey) from t0)").predicate()
                        .vsr("t0", t0(1, 20)).vsr("t1", t1(2, 43), t1(3, 43)).bwr(t1(2, 43)).awr(t1(2, 63), t1(3, 63)).build());
        return new Execution(stmts, Map.of(0, TxnEnd.COMMITTED, 1, TxnEnd.COMMITTED));
    }
}
