package txfuzz.oracle;

import java.util.List;
import txfuzz.history.Analysis;
import txfuzz.history.Anomaly;
import txfuzz.history.Documented;
import txfuzz.history.History;
import txfuzz.model.IsolationLevel;

/**
 * What an oracle that reads anomalies from row-level histories offers besides judging runs: its
 * judgement of a history on its own, which the commands built on it use ({@code txfuzz check} judges
 * a recorded history, {@code txfuzz isolation-table} tabulates every anomaly each level shows). Its
 * registration offers it ({@link OracleRegistration#judgingHistories}); the commands ask the registry
 * for the oracle that does, never for an oracle by name.
 */
public interface HistoryJudge {
    /**
     * Every anomaly kind the history shows (its first witness), also those the level permits: those are
     * classified documented, the level's definition being the reference (see {@link #proscribed}).
     */
    List<Violation> observe(History h, IsolationLevel level, Documented documented, String reference);

    /**
     * A violation for every proscribed witness of an analysed history, not just the first per kind. The
     * history is the file {@code historyFile} names, so it is referred to, not attached again.
     */
    List<Violation> everyWitness(Analysis analysis, History h, IsolationLevel level, Documented documented, String reference,
                                 String historyFile);

    /** Whether the level proscribes the violation's anomaly (false for a violation of another oracle). */
    boolean proscribed(Violation v);

    /** The violation kind's one spelling for an anomaly ("lost update" → "lost-update"). */
    String kind(Anomaly a);

    /** The lines explaining a violation under its one-line summary (its cycle, what each transaction did, why it is proscribed); none for another oracle's. */
    List<String> explanation(Violation v);
}
