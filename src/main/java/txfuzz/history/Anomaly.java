package txfuzz.history;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The anomalies the checker reports: Adya's phenomena (Adya, "Weak Consistency", MIT PhD thesis
 * 1999, §4; Adya, Liskov, O'Neil, ICDE 2000), Elle's additions for histories with observable
 * version orders (Kingsbury &amp; Alvaro, "Elle", VLDB 2020: G-single, G-nonadjacent,
 * incompatible-order, dirty-update, internal, predicate-read-miss), and the named forms users know
 * (Berenson et al., "A Critique of ANSI SQL Isolation Levels", SIGMOD 1995: lost update P4, fuzzy
 * read P2, phantom P3, read skew A5A, write skew A5B; IsoRel §2.4 and Li et al. for read-write
 * skew; APTrans Tables 2–3 for the operation patterns).
 *
 * <p>Cycle anomalies form a hierarchy by the anti-dependency (rw) edges of the witness cycle:
 * none (G0, G1c), exactly one (G-single and its named forms), several (G-nonadjacent when no two
 * are adjacent, else G2-item / write skew; G2 when a predicate anti-dependency is needed). Each
 * cycle is reported under its most specific name; {@link #parent()} gives the more general kind a
 * named form refines, so a profile that permits the general kind permits the named one too.
 */
public enum Anomaly {
    // --- cycles (Adya 1999 §4.4; Elle §4) ---
    G0("G0", "dirty write: a cycle of write-write dependencies", null),
    G1C("G1c", "circular information flow: a cycle of write-write and write-read dependencies, at least one write-read", null),
    G_SINGLE("G-single", "a cycle with exactly one anti-dependency (Adya's G-single, read skew family)", null),
    G_NONADJACENT("G-nonadjacent", "a cycle with several item anti-dependencies, no two of them adjacent (Elle; proscribed by snapshot isolation)", null),
    G2_ITEM("G2-item", "a cycle with two or more item anti-dependencies, at least two of them adjacent", null),
    G2("G2", "a cycle with two or more anti-dependencies, at least one of them through a predicate read", null),
    // --- named forms of cycles ---
    LOST_UPDATE("lost update", "T1 read a row, another transaction wrote it, then T1 overwrote it: the other write is lost (P4; rw and ww on one row)", G_SINGLE),
    NON_REPEATABLE_READ("non-repeatable read", "fuzzy read: T1 read a row twice and saw another transaction's write in between (P2; rw and wr on one row)", G_SINGLE),
    READ_SKEW("read skew", "T1 saw one row before and another row after another transaction's writes (A5A; rw and wr on different rows)", G_SINGLE),
    READ_WRITE_SKEW("read-write skew", "T1 read a row before another transaction wrote it, and wrote another row after that transaction (IsoRel §2.4; rw and ww on different rows)", G_SINGLE),
    PHANTOM("phantom", "a predicate read missed a row another transaction inserted, changed or deleted, yet the reader also saw that transaction's effects (P3/A3)", G_SINGLE),
    WRITE_SKEW("write skew", "two transactions each read what the other then wrote (A5B; two rw dependencies)", G2_ITEM),
    // --- not cycles ---
    G1A("G1a", "aborted read: a committed transaction read a version written by a transaction that aborted", null),
    G1B("G1b", "intermediate read: a committed transaction read a version its writer later overwrote itself", null),
    DIRTY_UPDATE("dirty update", "a committed write was applied on top of a version written by a transaction that aborted (Elle)", G1A),
    INCOMPATIBLE_ORDER("incompatible order", "two observed wLists of one row are not prefixes of one another, or a row got a version after it was deleted: no single version order explains them (Elle)", null),
    GARBAGE_READ("garbage read", "a wList names a transaction that is not in the history, or the initial state anywhere but first", null),
    INTERNAL("internal", "a transaction read a version of a row without its own earlier write of it (Elle's internal consistency)", null),
    PREDICATE_READ_MISS("predicate read miss", "a predicate read missed a row that existed from the start, was never deleted and matched in every version (Elle)", null),
    FRACTURED_READ("fractured read", "one statement that ran alone returned a row with a committed transaction's write and another row that"
            + " transaction wrote without it: no single state of the database holds both (per-statement view check)", null);

    private final String label;
    private final String description;
    private final Anomaly parent;

    Anomaly(String label, String description, Anomaly parent) {
        this.label = label;
        this.description = description;
        this.parent = parent;
    }

    /** How users and the literature write it: "G-single", "lost update". */
    @JsonValue
    public String label() {
        return label;
    }

    public String description() {
        return description;
    }

    /** The more general kind this one refines (a profile permitting that permits this), or null. */
    public Anomaly parent() {
        return parent;
    }

    public boolean isCycle() {
        return ordinal() <= WRITE_SKEW.ordinal();
    }

    /** This kind or one of its generalisations is in {@code set}. */
    public boolean coveredBy(java.util.Set<Anomaly> set) {
        for (Anomaly a = this; a != null; a = a.parent) {
            if (set.contains(a)) {
                return true;
            }
        }
        return false;
    }

    /** Accepts the label ("G-single", "lost update"), the enum name ("LOST_UPDATE") or "lost-update"; null when unknown. */
    public static Anomaly parse(String text) {
        String t = text.trim();
        for (Anomaly a : values()) {
            if (a.label.equalsIgnoreCase(t) || a.name().equalsIgnoreCase(t.replace('-', '_').replace(' ', '_'))
                    || a.label.replace(' ', '-').equalsIgnoreCase(t)) {
                return a;
            }
        }
        return null;
    }
}
