package txfuzz.dbms;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import txfuzz.history.Anomaly;
import txfuzz.history.CycleCondition;
import txfuzz.history.Documented;

/**
 * What a target documents about one isolation level.
 *
 * @param deviations          write-order deviations the engine documents at this level (the wss oracle)
 * @param serializableReads   whether reads must match the commit-order serial schedule (true
 *                            serializability with commit order as serialization order, e.g. 2PL)
 * @param reference           where the engine documents it (URL or manual section)
 * @param documentedAnomalies dependency-cycle anomalies (the isolation oracle) the engine documents
 *                            at this level although the level's generalised definition (Adya)
 *                            proscribes them — Hermitage's approach: PostgreSQL's REPEATABLE READ
 *                            is snapshot isolation and permits write skew. A named form is covered
 *                            when its general kind is listed.
 * @param anomalyReference    where the engine documents those anomalies, or null when there are none
 * @param preconditions       rules the engine documents at this level that a deviation's simulation does
 *                            not model by itself and the wss oracle checks against the trace: a
 *                            documented deviation explains a run only while they hold
 * @param upserts             how an INSERT-based upsert arbitrates key conflicts at this level
 * @param documented          the documented anomalies each with the shape of cycle the manual describes
 *                            ({@link #onlyIn}); null: every one of {@code documentedAnomalies} in any shape. Its kinds are
 *                            {@code documentedAnomalies}
 * @param bases               for deviations the manual describes (its sentence) or txfuzz measured within the level's
 *                            promises, the {@link Basis}; a deviation without one explains a violation only where the
 *                            engine's claimed standard promise permits what it does (the promise its mechanism keeps, txfuzz.oracle.wss.Mechanism#keeps)
 * @param recheckedSubqueries under {@link Deviation#STATEMENT_SNAPSHOT_WITH_RECHECK}, what the re-check of a chosen row
 *                            reads for the statement's subqueries
 * @param mergeLocks          under {@link Deviation#STATEMENT_SNAPSHOT_WITH_RECHECK}, which target rows a MERGE locks and re-checks
 */
public record LevelSemantics(Set<Deviation> deviations, boolean serializableReads, String reference, Set<Anomaly> documentedAnomalies,
                             String anomalyReference, Set<Deviation.Precondition> preconditions, Deviation.UpsertArbitration upserts,
                             Documented documented, Map<Deviation, Basis> bases, Deviation.RecheckedSubqueries recheckedSubqueries,
                             Deviation.MergeLocks mergeLocks) {
    public LevelSemantics {
        mergeLocks = mergeLocks == null ? Deviation.MergeLocks.ACTED_ROWS : mergeLocks;
        recheckedSubqueries = recheckedSubqueries == null ? Deviation.RecheckedSubqueries.RUN_AGAIN_ON_SNAPSHOT : recheckedSubqueries;
        bases = bases == null || bases.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(bases));
        if (documented == null) {
            documented = Documented.anyShape(documentedAnomalies == null ? Set.of() : documentedAnomalies);
        } else {
            documentedAnomalies = documented.kinds();
        }
        preconditions = preconditions == null || preconditions.isEmpty() ? Set.of()
                : java.util.Collections.unmodifiableSet(EnumSet.copyOf(preconditions));
        upserts = upserts == null ? Deviation.UpsertArbitration.VIEW : upserts;
        // an EnumSet keeps its declaration order in every JVM (Set.copyOf's order changes per run, and with it
        // which documented deviation a report names first)
        deviations = deviations.isEmpty() ? Set.of() : java.util.Collections.unmodifiableSet(EnumSet.copyOf(deviations));
        documentedAnomalies = documentedAnomalies == null || documentedAnomalies.isEmpty() ? Set.of()
                : java.util.Collections.unmodifiableSet(EnumSet.copyOf(documentedAnomalies));
    }

    public LevelSemantics(Set<Deviation> deviations, boolean serializableReads, String reference, Set<Anomaly> documentedAnomalies,
                          String anomalyReference) {
        this(deviations, serializableReads, reference, documentedAnomalies, anomalyReference, Set.of(), null, null, null, null, null);
    }

    public LevelSemantics(Set<Deviation> deviations, boolean serializableReads, String reference) {
        this(deviations, serializableReads, reference, Set.of(), null);
    }

    public static LevelSemantics strict(String reference) {
        return new LevelSemantics(Set.of(), true, reference);
    }

    public static LevelSemantics permits(String reference, Deviation... deviations) {
        return new LevelSemantics(Set.of(deviations), false, reference);
    }

    /** The same, plus anomalies the engine documents at this level, with where it says so. */
    public LevelSemantics documenting(String where, Anomaly... anomalies) {
        return new LevelSemantics(deviations, serializableReads, reference, Set.of(anomalies), where, preconditions, upserts, null, bases, recheckedSubqueries, mergeLocks);
    }

    /**
     * The same, with {@code kinds} documented only in {@code shape} (added when not documented yet): {@code why}, the
     * manual's own sentence that describes that shape, is added to the anomalies' reference.
     */
    public LevelSemantics onlyIn(CycleCondition shape, String why, Anomaly... kinds) {
        return new LevelSemantics(deviations, serializableReads, reference, null,
                anomalyReference == null ? why : anomalyReference + "; " + why, preconditions, upserts, documented.onlyIn(shape, kinds), bases, recheckedSubqueries, mergeLocks);
    }

    /** The same, with rules the engine documents at this level that the wss oracle checks against the trace. */
    public LevelSemantics requiring(Deviation.Precondition... rules) {
        Set<Deviation.Precondition> all = EnumSet.noneOf(Deviation.Precondition.class);
        all.addAll(preconditions);
        all.addAll(Set.of(rules));
        return new LevelSemantics(deviations, serializableReads, reference, documentedAnomalies, anomalyReference, all, upserts, documented, bases, recheckedSubqueries, mergeLocks);
    }

    /** The same, with INSERT-based upserts arbitrating key conflicts as {@code how}. */
    public LevelSemantics arbitratingUpserts(Deviation.UpsertArbitration how) {
        return new LevelSemantics(deviations, serializableReads, reference, documentedAnomalies, anomalyReference, preconditions, how, documented, bases, recheckedSubqueries, mergeLocks);
    }

    /**
     * The same, with {@code kinds} covered only in {@code shape} by a behaviour txfuzz measured ({@code basis}): a finding
     * it covers is not promised, not documented ({@link Documented#measured}).
     */
    public LevelSemantics measuredIn(CycleCondition shape, Basis.Measured basis, Anomaly... kinds) {
        return new LevelSemantics(deviations, serializableReads, reference, null,
                anomalyReference == null ? basis.cite() : anomalyReference + "; " + basis.cite(), preconditions, upserts,
                documented.measuredIn(shape, kinds), bases, recheckedSubqueries, mergeLocks);
    }

    /** The same, with {@code deviation} permitted on {@code basis} (the manual's sentence, or a measurement within the level's promises). */
    public LevelSemantics basedOn(Deviation deviation, Basis basis) {
        Set<Deviation> all = EnumSet.noneOf(Deviation.class);
        all.addAll(deviations);
        all.add(deviation);
        Map<Deviation, Basis> b = new EnumMap<>(Deviation.class);
        b.putAll(bases);
        b.put(deviation, basis);
        return new LevelSemantics(all, serializableReads, reference, documentedAnomalies, anomalyReference, preconditions, upserts, documented, b, recheckedSubqueries, mergeLocks);
    }

    /** The same, with the re-check of {@link Deviation#STATEMENT_SNAPSHOT_WITH_RECHECK} reading subqueries as {@code how}. */
    public LevelSemantics recheckingSubqueries(Deviation.RecheckedSubqueries how) {
        return new LevelSemantics(deviations, serializableReads, reference, documentedAnomalies, anomalyReference, preconditions, upserts, documented,
                bases, how, mergeLocks);
    }

    /** The same, with a MERGE under {@link Deviation#STATEMENT_SNAPSHOT_WITH_RECHECK} locking and re-checking {@code which} target rows. */
    public LevelSemantics lockingMergeRows(Deviation.MergeLocks which) {
        return new LevelSemantics(deviations, serializableReads, reference, documentedAnomalies, anomalyReference, preconditions, upserts, documented,
                bases, recheckedSubqueries, which);
    }

    /** Why {@code deviation} may explain a violation here, where the catalogue says more than the standard level. */
    public Optional<Basis> basis(Deviation deviation) {
        return Optional.ofNullable(bases.get(deviation));
    }

    /** Whether the engine documents {@code rule} at this level. */
    public boolean requires(Deviation.Precondition rule) {
        return preconditions.contains(rule);
    }
}
