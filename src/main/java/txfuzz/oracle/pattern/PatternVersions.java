package txfuzz.oracle.pattern;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternOp;
import txfuzz.history.History;
import txfuzz.history.WList;

/**
 * The row versions a pattern's run goes through, as the history records them (write lists of
 * transaction ids: pattern transaction i is history transaction i). Version k of an item is made by
 * the item's k-th write, on top of the newest version that was not rolled back when it was made: a
 * transaction's abort takes its versions away (aborted-lost-update's W1[x2] goes on x0, as the
 * engine would put it), unless another transaction already wrote on top of them (a dirty write keeps
 * them in the list, as the instrumentation would see it).
 */
final class PatternVersions {
    private final Map<String, Map<Integer, WList>> lists = new HashMap<>();
    private final Map<String, Map<Integer, Long>> writers = new HashMap<>();
    private final Map<String, Map<Integer, Integer>> basis = new HashMap<>();
    private final Map<String, Integer> newest = new HashMap<>();

    private PatternVersions(AnomalyPattern p) {
        for (String item : p.items()) {
            lists.put(item, new HashMap<>());
            writers.put(item, new HashMap<>());
            basis.put(item, new HashMap<>());
            if (!p.insertedItems().contains(item)) {
                lists.get(item).put(0, WList.of(History.INITIAL));
            }
            writers.get(item).put(0, History.INITIAL);
            newest.put(item, 0);
        }
        Map<Integer, List<PatternOp.Version>> written = new HashMap<>();
        for (PatternOp op : p.ops()) {
            if (op.type().writes()) {
                PatternOp.Version v = op.single();
                int before = newest.get(v.item());
                WList prev = lists.get(v.item()).get(before);
                WList made = op.type() == PatternOp.Type.INSERT || prev == null ? WList.of(op.txn()) : prev.append(op.txn());
                lists.get(v.item()).put(v.version(), made);
                writers.get(v.item()).put(v.version(), (long) op.txn());
                basis.get(v.item()).put(v.version(), before);
                newest.put(v.item(), v.version());
                written.computeIfAbsent(op.txn(), t -> new ArrayList<>()).add(v);
            } else if (op.type() == PatternOp.Type.ABORT) {
                for (PatternOp.Version v : written.getOrDefault(op.txn(), List.of())) {
                    // roll the item back past the aborted transaction's versions still on top
                    int n = newest.get(v.item());
                    while (n > 0 && writer(v.item(), n) == op.txn()) {
                        n = basis.get(v.item()).get(n);
                    }
                    newest.put(v.item(), n);
                }
            }
        }
    }

    static PatternVersions of(AnomalyPattern p) {
        return new PatternVersions(p);
    }

    /** The write list of version {@code v}; null for the "not there yet" version 0 of an inserted item. */
    WList list(PatternOp.Version v) {
        return lists.get(v.item()).get(v.version());
    }

    /** The transaction that made version {@code version} of {@code item} (0: the initial data). */
    long writer(String item, int version) {
        return writers.get(item).get(version);
    }

    /** The version the write of {@code v} was made on top of (0 for the first write). */
    int basis(PatternOp.Version v) {
        return basis.get(v.item()).getOrDefault(v.version(), 0);
    }

    /** The item's version after the whole pattern: its latest write not rolled back. */
    int last(String item) {
        return newest.get(item);
    }
}
