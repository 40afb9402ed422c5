package txfuzz.campaign;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;

/**
 * summary.json's {@code meta}: what a CI job or a person triaging needs to know to run the same
 * campaign again — which txfuzz, invoked how, on which build of the engine — and which shape of
 * summary.json to expect.
 *
 * @param formatVersion summary.json's format ({@link #FORMAT_VERSION}); a reader refuses versions it does not know
 * @param txfuzzVersion txfuzz's version (the pom's)
 * @param gitCommit     the commit txfuzz was built from; null when unknown (see {@link BuildInfo})
 * @param gitDirty      whether txfuzz's sources differed from that commit; null when unknown
 * @param commandLine   the command as typed, {@code txfuzz} first, secrets in URLs masked; null when not started from the command line
 * @param startedAt     when the campaign started, UTC, ISO-8601
 * @param java          the Java runtime's version (the in-process engines run on it)
 * @param engine        the build of the engine tested (with --subjects: the primary subject's)
 * @param subjects      with --subjects: every subject's label, the primary first; null (and absent from summary.json) otherwise
 * @param worker        the share of the iteration space this process ran ({@code run --worker i/N}, iteration k in worker
 *                      k mod N); null when it ran all of it
 * @param jobs          how many workers ran cases side by side in this process ({@code run --jobs}); null for one
 */
public record RunMeta(int formatVersion, String txfuzzVersion, String gitCommit, Boolean gitDirty, List<String> commandLine,
                      String startedAt, String java, EngineBuild engine,
                      @JsonInclude(JsonInclude.Include.NON_NULL) List<String> subjects,
                      @JsonInclude(JsonInclude.Include.NON_NULL) String worker, @JsonInclude(JsonInclude.Include.NON_NULL) Integer jobs) {
    /** The shape of summary.json. 1: the first one with a version (and {@code meta}); files without {@code meta} are older. */
    public static final int FORMAT_VERSION = 1;

    public RunMeta {
        commandLine = commandLine == null ? null : List.copyOf(commandLine);
        subjects = subjects == null ? null : List.copyOf(subjects);
    }

    /** This meta, for a campaign over the subjects {@code labels}. */
    public RunMeta withSubjects(List<String> labels) {
        return new RunMeta(formatVersion, txfuzzVersion, gitCommit, gitDirty, commandLine, startedAt, java, engine, labels, worker, jobs);
    }

    public RunMeta(int formatVersion, String txfuzzVersion, String gitCommit, Boolean gitDirty, List<String> commandLine,
                   String startedAt, String java, EngineBuild engine) {
        this(formatVersion, txfuzzVersion, gitCommit, gitDirty, commandLine, startedAt, java, engine, null, null, null);
    }

    /** The same run, as worker {@code p} of a partitioned campaign with {@code jobs} workers in the process. */
    public RunMeta ranAs(Partition p, int jobs) {
        return new RunMeta(formatVersion, txfuzzVersion, gitCommit, gitDirty, commandLine, startedAt, java, engine, subjects,
                p.whole() ? null : p.toString(), jobs == 1 ? null : jobs);
    }

    /** A run of {@code target} opened with {@code options}, started now by {@code commandLine} (null: not from the command line). */
    public static RunMeta of(Target target, TargetOptions options, List<String> commandLine) {
        return now(commandLine, EngineBuild.of(target.name(), options, target.version()));
    }

    /** A run of {@code target} opened with options nobody told the campaign: the engine build is only what it reports. */
    static RunMeta of(Target target) {
        return now(null, EngineBuild.reportedOnly(target.version()));
    }

    private static RunMeta now(List<String> commandLine, EngineBuild engine) {
        BuildInfo build = BuildInfo.current();
        return new RunMeta(FORMAT_VERSION, build.version(), build.gitCommit(), build.gitDirty(), commandLine,
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), Runtime.version().toString(), engine, null, null, null);
    }
}
