package txfuzz.dbms;

import java.util.EnumSet;
import java.util.Set;
import txfuzz.history.Anomaly;

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
 */
public record LevelSemantics(Set<Deviation> deviations, boolean serializableReads, String reference, Set<Anomaly> documentedAnomalies,
                             String anomalyReference) {
    public LevelSemantics {
        // an EnumSet keeps its declaration order in every JVM (Set.copyOf's order changes per run, and with it
        // which documented deviation a report names first)
        deviations = deviations.isEmpty() ? Set.of() : java.util.Collections.unmodifiableSet(EnumSet.copyOf(deviations));
        documentedAnomalies = documentedAnomalies == null || documentedAnomalies.isEmpty() ? Set.of()
                : java.util.Collections.unmodifiableSet(EnumSet.copyOf(documentedAnomalies));
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
        return new LevelSemantics(deviations, serializableReads, reference, Set.of(anomalies), where);
    }
}
