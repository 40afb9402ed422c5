package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import txfuzz.model.StmtRef;

/**
 * One data statement as it ran inside its transaction, with what TxCheck's SQL-level
 * instrumentation (OSDI 2023 §3.2, Fig. 5–6) recorded around it.
 *
 * @param ref        identity: transaction and index in it (0-based, BEGIN included, as in the paper's
 *                   "T1.S2" and in {@link StmtRef})
 * @param sql        the statement's text, for reports and the non-transactional replay
 * @param kind       read (SELECT) or write (INSERT/UPDATE/DELETE/…)
 * @param target     for a write, the table it writes; null for a read. VSR items of this table belong
 *                   to its w(P: Vset(P)); VSR items of other tables to the predicate reads its
 *                   subqueries perform, r(P: Vset(P)) (see {@link StatementDependencyGraph})
 * @param predicate  it performs a predicate operation: r(P: Vset(P)) for a read, w(P: Vset(P)) for a
 *                   write (a WHERE, a JOIN condition, a subquery choosing rows — Adya's predicate-based
 *                   operations). Decides between the stmt-predicate-* kinds; see {@link DepKind}
 * @param valueWrite a write whose installed values are computed from other item versions,
 *                   w<sup>value</sup>(E: Vset(E)) of Definition 8 ({@code SET c = (SELECT min(v) FROM t)},
 *                   {@code INSERT … SELECT}); gives stmt-value-write dependencies
 * @param delete     a write that removes the rows it matched (its AWR is empty by nature)
 * @param reads      for a read: the item versions it returned (its own output, which must include
 *                   PrimaryKey and VersionKey)
 * @param bwr        for a write: output of its Before-Write Read — the item versions it is about to
 *                   overwrite (same predicate as the write); empty for an INSERT
 * @param awr        for a write: output of its After-Write Read — the item versions it installed
 *                   (rows whose VersionKey equals the value it assigned); empty for a DELETE
 * @param vsr        outputs of its Version-Set Reads, one per referenced table
 * @param completion position in the actual order of completion of all statements of the run
 *                   (a statement that blocked is placed where it completed, not where it was submitted)
 * @param blocked    it waited on a lock between its instrumentation reads and its completion, so
 *                   its BWR/VSR may describe another state than the one it acted on (TxCheck §4,
 *                   "blocking scheduling", Fig. 11)
 */
public record StmtExec(StmtRef ref, String sql, Kind kind, String target, boolean predicate, boolean valueWrite, boolean delete,
                       Set<Item> reads, Set<Item> bwr, Set<Item> awr, List<VersionSet> vsr, int completion, boolean blocked) {

    public enum Kind {
        READ,
        WRITE
    }

    public StmtExec {
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(kind, "kind");
        sql = sql == null ? "" : sql;
        reads = Set.copyOf(reads);
        bwr = Set.copyOf(bwr);
        awr = Set.copyOf(awr);
        vsr = List.copyOf(vsr);
        if (kind == Kind.READ && (!bwr.isEmpty() || !awr.isEmpty() || valueWrite || delete)) {
            throw new IllegalArgumentException(ref + ": a read has no BWR/AWR and is neither a value write nor a delete");
        }
        if ((kind == Kind.WRITE) != (target != null)) {
            throw new IllegalArgumentException(ref + ": a write names the table it writes (target), a read does not");
        }
        if (kind == Kind.WRITE && !reads.isEmpty()) {
            throw new IllegalArgumentException(ref + ": a write's items go in bwr/awr, not reads");
        }
        if (delete && !awr.isEmpty()) {
            throw new IllegalArgumentException(ref + ": a delete installs no visible version, its AWR is empty");
        }
    }

    public boolean isRead() {
        return kind == Kind.READ;
    }

    public boolean isWrite() {
        return kind == Kind.WRITE;
    }

    /** All item versions its VSRs returned. */
    public Set<Item> vsrItems() {
        Set<Item> all = new LinkedHashSet<>();
        vsr.forEach(v -> all.addAll(v.items()));
        return all;
    }

    /** The tables its VSRs cover. */
    public Set<String> referencedTables() {
        Set<String> t = new LinkedHashSet<>();
        vsr.forEach(v -> t.add(v.table()));
        return t;
    }

    /** "T1.S2", as the paper names statements. */
    public String label() {
        return label(ref);
    }

    public static String label(StmtRef r) {
        return "T" + r.txn() + ".S" + r.index();
    }

    public static Builder read(int txn, int index) {
        return new Builder(new StmtRef(txn, index), Kind.READ, null);
    }

    public static Builder write(int txn, int index, String table) {
        return new Builder(new StmtRef(txn, index), Kind.WRITE, java.util.Objects.requireNonNull(table, "table"));
    }

    /** The same statement taken as blocked: its version sets may not describe what it acted on. */
    public StmtExec asBlocked() {
        return new StmtExec(ref, sql, kind, target, predicate, valueWrite, delete, reads, bwr, awr, vsr, completion, true);
    }

    /** The same statement placed at another completion position. */
    public StmtExec withCompletion(int c) {
        return new StmtExec(ref, sql, kind, target, predicate, valueWrite, delete, reads, bwr, awr, vsr, c, blocked);
    }

    /** For hand-built executions (tests, adapters from traces). */
    public static final class Builder {
        private final StmtRef ref;
        private final Kind kind;
        private final String target;
        private String sql = "";
        private boolean predicate;
        private boolean valueWrite;
        private boolean delete;
        private final Set<Item> reads = new LinkedHashSet<>();
        private final Set<Item> bwr = new LinkedHashSet<>();
        private final Set<Item> awr = new LinkedHashSet<>();
        private final List<VersionSet> vsr = new ArrayList<>();
        private int completion = -1;
        private boolean blocked;

        private Builder(StmtRef ref, Kind kind, String target) {
            this.ref = ref;
            this.kind = kind;
            this.target = target;
        }

        public Builder sql(String s) {
            sql = s;
            return this;
        }

        public Builder predicate() {
            predicate = true;
            return this;
        }

        public Builder valueWrite() {
            valueWrite = true;
            return this;
        }

        public Builder delete() {
            delete = true;
            return this;
        }

        public Builder reads(Item... items) {
            reads.addAll(List.of(items));
            return this;
        }

        public Builder bwr(Item... items) {
            bwr.addAll(List.of(items));
            return this;
        }

        public Builder awr(Item... items) {
            awr.addAll(List.of(items));
            return this;
        }

        public Builder vsr(String table, Item... items) {
            vsr.add(new VersionSet(table, Set.of(items)));
            return this;
        }

        public Builder completion(int c) {
            completion = c;
            return this;
        }

        public Builder blocked() {
            blocked = true;
            return this;
        }

        public StmtExec build() {
            return new StmtExec(ref, sql, kind, target, predicate, valueWrite, delete, reads, bwr, awr, vsr, completion, blocked);
        }
    }
}
