package txfuzz.oracle;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import txfuzz.gen.Generation;
import txfuzz.model.TestCase;

/**
 * What the registry knows of an oracle without making one: its name, how to make it from a context,
 * its violation kinds and its capabilities. Each oracle's package declares its own; the registry
 * ({@code campaign/Oracles}) lists them, one line each, and answers every question from these.
 *
 * @param name                   as named on the command line ({@link Oracle#name()})
 * @param factory                makes the oracle for a campaign's context
 * @param kinds                  every kind of violation it reports
 * @param needsRowTracking       it needs cases generated with row tracking ({@link Oracle#needsRowTracking()})
 * @param judgesUncontrolledRuns its verdict on a concurrent run means something ({@link Oracle#judgesUncontrolledRuns()})
 * @param judgesRecordedCase     whether a recorded case (replay, reduce, bisect) needs it when no oracle is named
 * @param defaultFor             the generators whose campaigns run it when --oracle is not given
 * @param engineFailure          how it reports an engine that failed outside any statement, or null when it does not
 * @param comparesSubjects       it compares the primary subject with the others ({@link OracleContext#subjects()}): it needs two
 *                               or more, and it is no subject's own oracle
 * @param study                  renders, from every oracle of this registration a campaign judged with (all workers'), the
 *                               campaign's study as Markdown (compatibility.md for a comparing oracle); null when it keeps none
 * @param histories              its judgement of a row-level history on its own, for the commands that judge histories
 *                               ({@link HistoryJudge}); null when it judges none
 */
public record OracleRegistration(String name, Function<OracleContext, Oracle> factory, List<? extends ViolationKind> kinds,
                                 boolean needsRowTracking, boolean judgesUncontrolledRuns, Predicate<TestCase> judgesRecordedCase,
                                 Set<Generation.Kind> defaultFor, BiFunction<String, Exception, Violation> engineFailure,
                                 boolean comparesSubjects, BiFunction<List<Oracle>, ExampleReducer, String> study, HistoryJudge histories) {
    public OracleRegistration {
        kinds = List.copyOf(kinds);
        defaultFor = defaultFor.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(defaultFor));
    }

    /** An oracle with no capability beyond judging a controlled run, run only when named. */
    public static OracleRegistration of(String name, Function<OracleContext, Oracle> factory, List<? extends ViolationKind> kinds) {
        return new OracleRegistration(name, factory, kinds, false, false, c -> false, Set.of(), null, false, null, null);
    }

    public OracleRegistration needingRowTracking() {
        return new OracleRegistration(name, factory, kinds, true, judgesUncontrolledRuns, judgesRecordedCase, defaultFor, engineFailure, comparesSubjects, study, histories);
    }

    public OracleRegistration judgingUncontrolledRuns() {
        return new OracleRegistration(name, factory, kinds, needsRowTracking, true, judgesRecordedCase, defaultFor, engineFailure, comparesSubjects, study, histories);
    }

    /** A recorded case for which {@code test} holds needs this oracle when none is named. */
    public OracleRegistration judgingRecordedCases(Predicate<TestCase> test) {
        return new OracleRegistration(name, factory, kinds, needsRowTracking, judgesUncontrolledRuns, test, defaultFor, engineFailure, comparesSubjects, study, histories);
    }

    /** Campaigns of these generators run it when --oracle is not given. */
    public OracleRegistration byDefaultFor(Generation.Kind... generators) {
        return new OracleRegistration(name, factory, kinds, needsRowTracking, judgesUncontrolledRuns, judgesRecordedCase, Set.of(generators), engineFailure, comparesSubjects, study, histories);
    }

    /** It reports an engine's failure outside any statement ("while running the case", the exception). */
    public OracleRegistration reportingEngineFailures(BiFunction<String, Exception, Violation> report) {
        return new OracleRegistration(name, factory, kinds, needsRowTracking, judgesUncontrolledRuns, judgesRecordedCase, defaultFor, report, comparesSubjects, study, histories);
    }

    /** It compares subjects: it needs two or more, and judges none of them on its own. */
    public OracleRegistration comparingSubjects() {
        return new OracleRegistration(name, factory, kinds, needsRowTracking, judgesUncontrolledRuns, judgesRecordedCase, defaultFor, engineFailure, true, study, histories);
    }

    /**
     * It keeps a study over a campaign: {@code render} makes it from the campaign's oracles of this registration, every
     * worker's, shrinking each scenario's example with the reducer it is given.
     */
    public OracleRegistration keepingStudy(BiFunction<List<Oracle>, ExampleReducer, String> render) {
        return new OracleRegistration(name, factory, kinds, needsRowTracking, judgesUncontrolledRuns, judgesRecordedCase, defaultFor, engineFailure, comparesSubjects, render, histories);
    }

    /** It judges row-level histories on their own too ({@code judge}): the commands that judge histories use it. */
    public OracleRegistration judgingHistories(HistoryJudge judge) {
        return new OracleRegistration(name, factory, kinds, needsRowTracking, judgesUncontrolledRuns, judgesRecordedCase, defaultFor, engineFailure, comparesSubjects, study, judge);
    }

    /** A new oracle for {@code context}. */
    public Oracle create(OracleContext context) {
        return factory.apply(context);
    }
}
