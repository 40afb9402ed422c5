package txfuzz.oracle.pattern;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternOp;
import txfuzz.history.Analysis;
import txfuzz.history.Anomaly;
import txfuzz.history.AnomalyFinding;
import txfuzz.history.History;
import txfuzz.history.IsolationChecker;
import txfuzz.history.IsolationModel;
import txfuzz.history.RowVersion;
import txfuzz.history.WList;
import txfuzz.model.IsolationLevel;

/**
 * What a pattern means to txfuzz: the history its run records, the anomalies the isolation checker
 * finds in it, the phenomena its order shows, and from both the isolation levels that proscribe it
 * (docs/patterns.md, "How txfuzz judges a pattern").
 *
 * @param pattern      the pattern
 * @param layout       where its items live (one table, or a table each)
 * @param history      the history a run that realises it records (pattern transaction i is history
 *                     transaction i; statement s of a transaction is its s-th operation, BEGIN being 0)
 * @param anomalies    the kinds of what {@link IsolationChecker} finds in that history (each finding's most
 *                     specific kind: "lost update", not also "G-single")
 * @param phenomena    what the order itself shows
 * @param proscribedAt the levels that proscribe an anomaly ({@link IsolationModel}) or a phenomenon
 * @param witness      the history's most severe cycle (the checker's first cycle finding), if any
 */
public record PatternSemantics(AnomalyPattern pattern, Layout layout, History history, Set<Anomaly> anomalies,
                               Set<SchedulePhenomenon> phenomena, Set<IsolationLevel> proscribedAt, Optional<AnomalyFinding> witness) {
    /** Where a pattern's items live. */
    public enum Layout {
        /** Every item a row of table {@code t}: how the catalogue's levels are read. */
        ONE_TABLE,
        /** Item x a row of table {@code t_x}: the same pattern spread over tables (a read skew across tables). */
        TABLE_PER_ITEM
    }

    public PatternSemantics {
        anomalies = anomalies.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(anomalies));
        phenomena = phenomena.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(phenomena));
        proscribedAt = proscribedAt.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(proscribedAt));
    }

    /** The pattern with its items as rows of one table. */
    public static PatternSemantics of(AnomalyPattern p) {
        return of(p, Layout.ONE_TABLE);
    }

    public static PatternSemantics of(AnomalyPattern p, Layout layout) {
        PatternVersions versions = PatternVersions.of(p);
        History h = history(p, versions, layout);
        Analysis analysis = IsolationChecker.analyze(h);
        // each finding's own, most specific kind, as the oracle judges it: a phantom is a G-single, yet
        // PL-2.99 (REPEATABLE READ) permits it (Adya 1999 §4.2: it proscribes item anti-dependency
        // cycles, G2-item, not predicate ones), so the general kind must not decide the level
        Set<Anomaly> anomalies = EnumSet.noneOf(Anomaly.class);
        analysis.findings().forEach(f -> anomalies.add(f.anomaly()));
        Set<SchedulePhenomenon> phenomena = phenomena(p, versions);
        Set<IsolationLevel> levels = EnumSet.noneOf(IsolationLevel.class);
        for (IsolationLevel l : IsolationLevel.values()) {
            boolean anomaly = anomalies.stream().anyMatch(a -> IsolationModel.proscribes(l, a));
            boolean phenomenon = phenomena.stream().anyMatch(ph -> ph.proscribedAt().contains(l));
            if (anomaly || phenomenon) {
                levels.add(l);
            }
        }
        Optional<AnomalyFinding> witness = analysis.findings().stream().filter(f -> !f.cycle().isEmpty()).findFirst();
        return new PatternSemantics(p, layout, h, anomalies, phenomena, levels, witness);
    }

    /** The witness cycle's shape ({@link AnomalyFinding#shape()}), or "no cycle". */
    public String shape() {
        return witness.map(AnomalyFinding::shape).orElse("no cycle");
    }

    /** The table that holds {@code item} in {@code layout}. */
    public static String table(Layout layout, String item) {
        return layout == Layout.ONE_TABLE ? "t" : "t_" + item;
    }

    /**
     * The history of a run that performs the operations in order and sees the versions the pattern
     * names. A predicate read returns the covered items present at the version it names (one predicate
     * read per table it covers). Predicates are told apart by the items they cover.
     *
     * <p>The checker learns that a row matches a predicate only from a read that returned it; for a
     * row inserted after every read of its predicate (predicate-write-skew) nothing in the pattern's
     * own reads does. The pattern states it, so a last committed transaction reads every predicate
     * once more: it only receives dependencies, so it adds no cycle, only the knowledge.
     */
    static History history(AnomalyPattern p, PatternVersions versions, Layout layout) {
        History.Builder b = History.builder().meta("pattern", p.name()).meta("layout", layout.name());
        Map<Integer, History.TxnBuilder> txns = new HashMap<>();
        for (int id : p.transactions()) {
            txns.put(id, b.txn(id));
        }
        Map<Integer, Integer> nextStmt = new HashMap<>();
        Map<String, List<String>> predicates = new LinkedHashMap<>();
        for (PatternOp op : p.ops()) {
            History.TxnBuilder t = txns.get(op.txn());
            int stmt = nextStmt.merge(op.txn(), 1, Integer::sum);
            t.stmt(stmt);
            switch (op.type()) {
                case READ -> t.read(table(layout, op.single().item()), op.single().item(), versions.list(op.single()).toArray());
                case PREDICATE_READ -> {
                    for (var e : byTable(op.reads(), layout).entrySet()) {
                        String name = predicate(e.getValue());
                        predicates.putIfAbsent(e.getKey() + "\u0000" + name, e.getValue().stream().map(PatternOp.Version::item).toList());
                        List<RowVersion> rows = new ArrayList<>();
                        for (PatternOp.Version v : e.getValue()) {
                            if (p.present(v)) {
                                rows.add(History.row(v.item(), versions.list(v).toArray()));
                            }
                        }
                        t.predicateRead(e.getKey(), name, false, rows.toArray(RowVersion[]::new));
                    }
                }
                case WRITE -> t.update(table(layout, op.single().item()), op.single().item(), basisList(versions, op));
                case INSERT -> t.insert(table(layout, op.single().item()), op.single().item());
                case DELETE -> t.delete(table(layout, op.single().item()), op.single().item(), basisList(versions, op));
                case COMMIT -> t.commit();
                case ABORT -> t.abort();
            }
        }
        if (!predicates.isEmpty()) {
            History.TxnBuilder observer = b.txn(p.transactions().size() + 1L);
            int stmt = 0;
            for (var e : predicates.entrySet()) {
                String[] key = e.getKey().split("\u0000", 2);
                List<RowVersion> rows = new ArrayList<>();
                for (String item : e.getValue()) {
                    int last = versions.last(item);
                    PatternOp.Version v = new PatternOp.Version(item, last);
                    if (p.present(v) && versions.list(v) != null) {
                        rows.add(History.row(item, versions.list(v).toArray()));
                    }
                }
                observer.stmt(stmt++).predicateRead(key[0], key[1], false, rows.toArray(RowVersion[]::new));
            }
            observer.commit();
        }
        return b.build();
    }

    private static long[] basisList(PatternVersions versions, PatternOp op) {
        WList before = versions.list(new PatternOp.Version(op.single().item(), versions.basis(op.single())));
        return before.toArray();
    }

    private static Map<String, List<PatternOp.Version>> byTable(List<PatternOp.Version> covered, Layout layout) {
        Map<String, List<PatternOp.Version>> out = new LinkedHashMap<>();
        for (PatternOp.Version v : covered) {
            out.computeIfAbsent(table(layout, v.item()), k -> new ArrayList<>()).add(v);
        }
        return out;
    }

    /** "covers x,y": a predicate is the set of items it covers. */
    private static String predicate(List<PatternOp.Version> covered) {
        return "covers " + covered.stream().map(PatternOp.Version::item).collect(Collectors.toCollection(TreeSet::new)).stream()
                .collect(Collectors.joining(","));
    }

    /** P0, P1 and reads that are not of the reader's snapshot, from the order (see {@link SchedulePhenomenon}). */
    static Set<SchedulePhenomenon> phenomena(AnomalyPattern p, PatternVersions versions) {
        Set<SchedulePhenomenon> out = EnumSet.noneOf(SchedulePhenomenon.class);
        Map<Integer, Integer> firstOp = new HashMap<>();
        Map<Integer, Integer> committedAt = new HashMap<>();
        Set<Integer> ended = new TreeSet<>();
        List<PatternOp> ops = p.ops();
        for (int i = 0; i < ops.size(); i++) {
            PatternOp op = ops.get(i);
            firstOp.putIfAbsent(op.txn(), i);
            switch (op.type()) {
                case COMMIT -> {
                    committedAt.put(op.txn(), i);
                    ended.add(op.txn());
                }
                case ABORT -> ended.add(op.txn());
                case WRITE, INSERT, DELETE -> {
                    long under = versions.writer(op.single().item(), versions.basis(op.single()));
                    if (under != History.INITIAL && under != op.txn() && !ended.contains((int) under)) {
                        out.add(SchedulePhenomenon.DIRTY_WRITE);
                    }
                }
                case READ, PREDICATE_READ -> {
                    for (PatternOp.Version v : op.reads()) {
                        long writer = versions.writer(v.item(), v.version());
                        if (writer == History.INITIAL || writer == op.txn()) {
                            continue;
                        }
                        Integer commit = committedAt.get((int) writer);
                        if (!ended.contains((int) writer)) {
                            out.add(SchedulePhenomenon.DIRTY_READ);
                        } else if (commit != null && commit > firstOp.get(op.txn())) {
                            out.add(SchedulePhenomenon.NOT_A_SNAPSHOT);
                        }
                    }
                }
            }
        }
        return out;
    }
}
