package txfuzz.exec;

import java.util.List;

/**
 * What the engine said about a statement txfuzz cancelled as hung: its own evidence that nothing waited.
 *
 * @param probesAsked      lock-probe answers collected while the statement ran
 * @param probesSawWaiting how many of them said it waited on a lock (a hang needs none in the last
 *                         statement timeout)
 * @param probedMillis     the time between the first and the last probe answer
 * @param lastAnswer       the last probe answer ("not waiting", "waits for [12]")
 * @param activities       the distinct states the engine's process list showed for the session, in
 *                         the order seen (MariaDB information_schema.PROCESSLIST.STATE); empty when
 *                         the engine has no process list
 * @param error            what the statement returned after the cancel, if anything
 * @param engineState      what the engine showed when txfuzz called the statement hung, as text: for an
 *                         in-process engine the stack of the thread running the statement, for a server
 *                         its own views of its sessions ({@link txfuzz.dbms.LockProbe#engineState}); null
 *                         when none was taken
 * @param endedBlockers    the transactions (their numbers) the engine's last answer said the statement waits
 *                         for, when every one of them had already ended: a wait nobody can release, not a
 *                         statement running without waiting; empty otherwise
 */
public record HangEvidence(int probesAsked, int probesSawWaiting, long probedMillis, String lastAnswer,
                           List<String> activities, String error, String engineState, List<Integer> endedBlockers) {
    public HangEvidence {
        activities = List.copyOf(activities);
        endedBlockers = endedBlockers == null ? List.of() : List.copyOf(endedBlockers);
    }

    public HangEvidence(int probesAsked, int probesSawWaiting, long probedMillis, String lastAnswer, List<String> activities, String error) {
        this(probesAsked, probesSawWaiting, probedMillis, lastAnswer, activities, error, null, List.of());
    }

    /** Whether the engine kept the statement waiting for transactions that had all ended. */
    public boolean waitsForEndedTransactions() {
        return !endedBlockers.isEmpty();
    }

    /** One line for a report. */
    public String describe() {
        return probesAsked + " lock-probe answers over " + probedMillis + " ms (" + probesSawWaiting + " said waiting; last: "
                + lastAnswer + "); process-list states " + (activities.isEmpty() ? "(none available)" : activities)
                + (error == null ? "" : "; after the cancel the statement returned " + error);
    }
}
