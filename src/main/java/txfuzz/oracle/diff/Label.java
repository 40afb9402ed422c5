package txfuzz.oracle.diff;

/** What a confirmed divergence is, each with its evidence ({@link Triaged}). */
public enum Label {
    /** One subject's own oracles flag the divergent statement, or it breaks a rule both levels promise that the other keeps. */
    BUG_CANDIDATE("bug-candidate"),
    /** Same engine and settings, two versions, each run keeping its own level's promise (both clean or documented). */
    BEHAVIOUR_CHANGE("behaviour-change"),
    /** Different engines, modes or settings, both clean or documented. */
    COMPATIBILITY("compatibility"),
    /** Nothing to report (identical subjects that both stay within their documentation). Counted, never reported. */
    NOT_COMPARABLE("not-comparable");

    private final String label;

    Label(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
