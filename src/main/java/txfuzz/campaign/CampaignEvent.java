package txfuzz.campaign;

/**
 * One line of events.jsonl (docs/formats.md): what the campaign did, as it happened. Every event
 * names itself in {@code event} first, so a reader can dispatch on it without knowing the rest.
 */
public sealed interface CampaignEvent {
    String event();

    /** The first line: which txfuzz, invoked how, on which engine build (summary.json's meta). */
    record Start(String event, String at, RunMeta meta) implements CampaignEvent {
        Start(String at, RunMeta meta) {
            this("start", at, meta);
        }
    }

    /**
     * A case was run and judged.
     *
     * @param outcome {@code clean}, {@code finding} (then {@code finding} is its id), or {@code invalid} (its setup failed: not counted as a case)
     */
    record Case(String event, String at, long iteration, String level, String mode, String outcome, String finding) implements CampaignEvent {
        static final String CLEAN = "clean";
        static final String FINDING = "finding";
        static final String INVALID = "invalid";

        Case(String at, long iteration, String level, String mode, String outcome, String finding) {
            this("case", at, iteration, level, mode, outcome, finding);
        }
    }

    /**
     * A finding was filed (after its reduction, if any): its primary violation and where it was filed.
     *
     * @param signature   the finding's signature id
     * @param duplicateOf the unique finding it is a duplicate of; null when it is one itself
     * @param violations  how many violations the case had
     */
    record Finding(String event, String at, String id, String oracle, String kind, String classification, String signature,
                   String duplicateOf, int violations, String dir, String summary) implements CampaignEvent {
        Finding(String at, String id, String oracle, String kind, String classification, String signature, String duplicateOf,
                int violations, String dir, String summary) {
            this("finding", at, id, oracle, kind, classification, signature, duplicateOf, violations, dir, summary);
        }
    }

    /**
     * The last line of a campaign that ended by itself or by a signal (a crash or SIGKILL leaves none): summary.json's totals.
     *
     * @param interrupted the run was cut short (SIGINT, SIGTERM) before its --tests or --time limit
     * @param signal      the signal that cut it short (SIGINT, SIGTERM); null when it was not, or when not known
     * @param endedBy     the limit that ended it: tests, time or max-bugs; null when it was interrupted
     */
    record End(String event, String at, long cases, double seconds, long bugCandidates, long uniqueFindings, long uniqueBugCandidates,
               long duplicates, boolean interrupted, String signal, String endedBy) implements CampaignEvent {
        End(String at, long cases, double seconds, long bugCandidates, long uniqueFindings, long uniqueBugCandidates, long duplicates,
            boolean interrupted, String signal, String endedBy) {
            this("end", at, cases, seconds, bugCandidates, uniqueFindings, uniqueBugCandidates, duplicates, interrupted, signal, endedBy);
        }
    }

    /**
     * A long step of the campaign began, between cases: reducing a finding, or replaying it on the
     * newest release. The progress lines name it until it ends.
     *
     * @param step    {@code reducing} or {@code checking-newest}
     * @param finding the finding's id
     */
    record Step(String event, String at, String step, String finding) implements CampaignEvent {
        Step(String at, String step, String finding) {
            this("step", at, step, finding);
        }
    }
}
