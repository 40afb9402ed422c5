package txfuzz.oracle.equiv;

/**
 * The seven statement dependencies of TxCheck (Jiang, Liu, Rigger, Su: "Detecting Transactional
 * Bugs in Database Engines via Graph-Based Oracle Construction", OSDI 2023, §3.1 and Fig. 3; formal
 * definitions 2–8 in Appendix A, modelled on Adya's transaction dependencies). An edge
 * S<sub>i</sub> → S<sub>j</sub> means S<sub>j</sub> depends on S<sub>i</sub>. The paper counts no
 * statement order (not even inside a transaction) as a dependency: "when two statements access
 * different data, the statements' execution order will not affect their results" (§3.1).
 */
public enum DepKind {
    /** Definition 2: S<sub>i</sub> installs x<sub>i</sub> and S<sub>j</sub> reads x<sub>i</sub>. Inferred by Lemma 1 (⇔): AWR(S<sub>i</sub>) ∩ output(S<sub>j</sub>). */
    ITEM_READ("item-read", "directly stmt-item-read-depends", 2, "Sj reads an item version Si installed"),
    /** Definition 3: S<sub>j</sub> installs the version of x after S<sub>i</sub>'s. Lemma 2 (⇔): AWR(S<sub>i</sub>) ∩ BWR(S<sub>j</sub>). */
    ITEM_WRITE("item-write", "directly stmt-item-write-depends", 3, "Sj installs the next version of an item after the one Si installed"),
    /** Definition 4: S<sub>i</sub> reads x<sub>k</sub>, S<sub>j</sub> installs x's next version. Lemma 3 (⇔): output(S<sub>i</sub>) ∩ BWR(S<sub>j</sub>). */
    ITEM_ANTI("item-anti", "directly stmt-item-anti-depends", 4, "Si reads an item version that Sj overwrites"),
    /** Definition 5: S<sub>j</sub> performs r<sub>j</sub>(P: Vset(P)) with x<sub>i</sub> ∈ Vset(P), x<sub>i</sub> installed by S<sub>i</sub>. Lemma 4 (⇒): AWR(S<sub>i</sub>) ∩ VSR(S<sub>j</sub>). */
    PREDICATE_READ("predicate-read", "directly stmt-predicate-read-depends", 5,
            "Sj's predicate read used (its version set holds) an item version Si installed"),
    /**
     * Definition 6: (1) S<sub>j</sub> overwrites w<sub>i</sub>(P: Vset(P)) of S<sub>i</sub>, or (2) S<sub>j</sub> performs
     * w<sub>j</sub>(Q: Vset(Q)) with x<sub>i</sub> ∈ Vset(Q). Lemma 5 (⇒): (1) VSR(S<sub>i</sub>) ∩ BWR(S<sub>j</sub>), or
     * (2) AWR(S<sub>i</sub>) ∩ VSR(S<sub>j</sub>).
     */
    PREDICATE_WRITE("predicate-write", "directly stmt-predicate-write-depends", 6,
            "Sj overwrites an item version in Si's predicate write's version set, or Sj's predicate write used a version Si installed"),
    /** Definition 7: S<sub>j</sub> overwrites r<sub>i</sub>(P: Vset(P)) of S<sub>i</sub>. Lemma 6 (⇒): VSR(S<sub>i</sub>) ∩ BWR(S<sub>j</sub>). */
    PREDICATE_ANTI("predicate-anti", "directly stmt-predicate-anti-depends", 7,
            "Sj overwrites an item version in the version set of Si's predicate read"),
    /**
     * Definition 8: (1) S<sub>i</sub> performs w<sup>value</sup><sub>i</sub>(E: Vset(E)) with x<sub>k</sub> ∈ Vset(E) and
     * S<sub>j</sub> installs x's next version, or (2) S<sub>j</sub> performs w<sup>value</sup><sub>j</sub>(F: Vset(F)) with
     * x<sub>i</sub> ∈ Vset(F) installed by S<sub>i</sub>. Lemma 7 (⇒): (1) VSR(S<sub>i</sub>) ∩ BWR(S<sub>j</sub>), or
     * (2) AWR(S<sub>i</sub>) ∩ VSR(S<sub>j</sub>).
     */
    VALUE_WRITE("value-write", "directly stmt-value-write-depends", 8,
            "Sj overwrites an item version Si's new values were computed from, or Sj's new values were computed from a version Si installed");

    private final String label;
    private final String paperName;
    private final int definition;
    private final String meaning;

    DepKind(String label, String paperName, int definition, String meaning) {
        this.label = label;
        this.paperName = paperName;
        this.definition = definition;
        this.meaning = meaning;
    }

    /** Short edge label, as in the paper's figures ("item-anti"). */
    public String label() {
        return label;
    }

    /** The paper's name of the relation ("directly stmt-item-anti-depends"). */
    public String paperName() {
        return paperName;
    }

    /** Number of the paper's definition (Appendix A). */
    public int definition() {
        return definition;
    }

    /** One line: what it means, with S<sub>i</sub> the statement depended on and S<sub>j</sub> the dependent. */
    public String meaning() {
        return meaning;
    }

    /** Item dependencies are inferred exactly (Lemmas 1–3, ⇔); the others may be spurious (Lemmas 4–7, ⇒ only). */
    public boolean exact() {
        return this == ITEM_READ || this == ITEM_WRITE || this == ITEM_ANTI;
    }
}
