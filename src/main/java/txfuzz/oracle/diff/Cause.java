package txfuzz.oracle.diff;

/** Why two subjects within their documentation differed (DT2 §6.1's root causes, plus what txfuzz's engines add). */
public enum Cause {
    BLOCKING_MODEL("blocking-model", "the subjects lock differently: one made the statement wait (or deadlock) where the other did not"),
    DEADLOCK_VICTIM("deadlock-victim", "both subjects broke a deadlock, but chose different victims"),
    SNAPSHOT_POINT("snapshot-point", "the subjects take a transaction's or statement's view of concurrent writes at different points"),
    WRITE_CONFLICT("write-conflict", "one subject aborts the second writer of a row (first-committer-wins), the other lets it write"),
    ABORT_SCOPE("abort-scope", "the same error ended the whole transaction on one subject and only the statement on the other"),
    SQL_SEMANTICS("sql-semantics", "the statement means something else on the two subjects, with no concurrent transaction involved"),
    UNEXPLAINED("unexplained", "txfuzz cannot name the cause from the traces");

    private final String label;
    private final String meaning;

    Cause(String label, String meaning) {
        this.label = label;
        this.meaning = meaning;
    }

    public String label() {
        return label;
    }

    public String meaning() {
        return meaning;
    }
}
