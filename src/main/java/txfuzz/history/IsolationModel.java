package txfuzz.history;

import static txfuzz.history.Anomaly.*;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import txfuzz.model.IsolationLevel;

/**
 * Which anomalies each isolation level proscribes, in Adya's generalised definitions (what the
 * level promises, whatever the engine). What a particular DBMS documents it permits on top of
 * this (e.g. PostgreSQL's REPEATABLE READ is snapshot isolation and permits write skew) is a
 * target profile's business; the checker takes it as {@code permittedByProfile}.
 *
 * <table>
 * <tr><th>level</th><th>Adya</th><th>proscribes (cumulative)</th></tr>
 * <tr><td>READ UNCOMMITTED</td><td>PL-1</td><td>G0; plus what no level allows: incompatible order,
 *     garbage read, internal</td></tr>
 * <tr><td>READ COMMITTED</td><td>PL-2</td><td>+ G1a, G1b, G1c, dirty update, predicate read miss</td></tr>
 * <tr><td>REPEATABLE READ</td><td>PL-2.99</td><td>+ G-single, G-nonadjacent, G2-item and their named
 *     forms: lost update, non-repeatable read, read skew, read-write skew, write skew. Not phantom,
 *     not G2 (predicate)</td></tr>
 * <tr><td>SNAPSHOT</td><td>PL-SI</td><td>PL-2 + G-single (G-SIb) with all its named forms including
 *     phantom, G-nonadjacent. Not G2-item with adjacent anti-dependencies, not write skew, not G2</td></tr>
 * <tr><td>SERIALIZABLE</td><td>PL-3</td><td>everything</td></tr>
 * </table>
 *
 * <p>Sources: Adya 1999 §4 (PL-1 G0; PL-2 G1; PL-2.99 G1 + G2-item; PL-3 G1 + G2; PL-SI G1 + G-SI,
 * whose G-SIb is a cycle with exactly one anti-dependency); Fekete et al., "Making Snapshot
 * Isolation Serializable", TODS 2005 (every SI cycle has two adjacent anti-dependencies, hence
 * G-nonadjacent is proscribed) and Elle's consistency model table (Kingsbury &amp; Alvaro 2020);
 * Berenson et al. 1995 Table 4 (lost update prevented at REPEATABLE READ and SI; phantom A3
 * prevented by SI, allowed at REPEATABLE READ; write skew allowed by SI). IsoRel (ISSTA 2025) §5.2
 * judges REPEATABLE READ by PL-2.99 the same way.
 *
 * <p>Deviation from Elle: Elle files incompatible order under G1a (its readers may see aborted
 * versions it cannot identify). Here aborted writers are known and their versions are set aside
 * first, so an incompatible order means two committed writes could not have followed one another:
 * a write was lost outright, which no level allows. Internal and garbage reads are likewise
 * proscribed everywhere: every SQL level lets a transaction see its own writes and read only data
 * someone wrote.
 */
public final class IsolationModel {
    private static final Map<IsolationLevel, Set<Anomaly>> PROSCRIBED = new EnumMap<>(IsolationLevel.class);
    private static final Map<IsolationLevel, String> REFERENCE = new EnumMap<>(IsolationLevel.class);

    static {
        EnumSet<Anomaly> pl1 = EnumSet.of(G0, INCOMPATIBLE_ORDER, GARBAGE_READ, INTERNAL);
        EnumSet<Anomaly> pl2 = EnumSet.copyOf(pl1);
        // a fractured read is only ever reported for a statement that ran alone (FracturedReads): from
        // READ COMMITTED up, every engine's documented read rule gives such a statement one state
        pl2.addAll(EnumSet.of(G1A, G1B, G1C, DIRTY_UPDATE, PREDICATE_READ_MISS, FRACTURED_READ));
        EnumSet<Anomaly> pl299 = EnumSet.copyOf(pl2);
        pl299.addAll(EnumSet.of(G_SINGLE, LOST_UPDATE, NON_REPEATABLE_READ, READ_SKEW, READ_WRITE_SKEW, G_NONADJACENT, G2_ITEM, WRITE_SKEW));
        EnumSet<Anomaly> si = EnumSet.copyOf(pl2);
        si.addAll(EnumSet.of(G_SINGLE, LOST_UPDATE, NON_REPEATABLE_READ, READ_SKEW, READ_WRITE_SKEW, PHANTOM, G_NONADJACENT));
        EnumSet<Anomaly> pl3 = EnumSet.allOf(Anomaly.class);
        PROSCRIBED.put(IsolationLevel.READ_UNCOMMITTED, Collections.unmodifiableSet(pl1));
        PROSCRIBED.put(IsolationLevel.READ_COMMITTED, Collections.unmodifiableSet(pl2));
        PROSCRIBED.put(IsolationLevel.REPEATABLE_READ, Collections.unmodifiableSet(pl299));
        PROSCRIBED.put(IsolationLevel.SNAPSHOT, Collections.unmodifiableSet(si));
        PROSCRIBED.put(IsolationLevel.SERIALIZABLE, Collections.unmodifiableSet(pl3));
        REFERENCE.put(IsolationLevel.READ_UNCOMMITTED, "Adya 1999 §4.2 PL-1 (proscribes G0)");
        REFERENCE.put(IsolationLevel.READ_COMMITTED, "Adya 1999 §4.2 PL-2 (proscribes G0, G1a, G1b, G1c)");
        REFERENCE.put(IsolationLevel.REPEATABLE_READ, "Adya 1999 §4.2 PL-2.99 (proscribes G1 and G2-item)");
        REFERENCE.put(IsolationLevel.SNAPSHOT, "Adya 1999 §4.3 PL-SI (G1, G-SIa, G-SIb); Fekete et al. TODS 2005; Elle (G-nonadjacent)");
        REFERENCE.put(IsolationLevel.SERIALIZABLE, "Adya 1999 §4.2 PL-3 (proscribes G1 and G2)");
    }

    private IsolationModel() {
    }

    public static Set<Anomaly> proscribed(IsolationLevel level) {
        return PROSCRIBED.get(level);
    }

    public static boolean proscribes(IsolationLevel level, Anomaly a) {
        return PROSCRIBED.get(level).contains(a);
    }

    public static String reference(IsolationLevel level) {
        return REFERENCE.get(level);
    }
}
