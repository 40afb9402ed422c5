package txfuzz.dbms;

import java.util.EnumSet;
import java.util.Set;

/**
 * What SQL an engine accepts, as a set of features, plus the few spellings that differ.
 *
 * @param name          for messages, e.g. "h2" or "h2∩sqlite"
 * @param features      what the generator may use
 * @param doubleType    the column type name for floating point
 * @param varcharType   the column type name for strings, with a length
 * @param concat        how strings are concatenated (the row-tracking instrumentation appends to
 *                      its write lists with it)
 */
public record Dialect(String name, Set<Feature> features, String doubleType, String varcharType, Concat concat) {
    /** String concatenation: the standard {@code a || b}, or {@code CONCAT(a, b)} where {@code ||} means OR (MariaDB, MySQL). */
    public enum Concat {
        PIPES, FUNCTION;

        public String apply(String a, String b) {
            return this == PIPES ? a + " || " + b : "CONCAT(" + a + ", " + b + ")";
        }
    }

    public Dialect {
        features = features.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(features));
        concat = concat == null ? Concat.PIPES : concat;
    }

    /** A dialect that concatenates with {@code ||}. */
    public Dialect(String name, Set<Feature> features, String doubleType, String varcharType) {
        this(name, features, doubleType, varcharType, Concat.PIPES);
    }

    /** {@code a} concatenated with {@code b}, in this dialect's spelling. */
    public String concat(String a, String b) {
        return concat.apply(a, b);
    }

    public boolean has(Feature f) {
        return features.contains(f);
    }

    /** The dialect every one of the two engines understands. Spellings come from this side. */
    public Dialect intersect(Dialect other) {
        EnumSet<Feature> common = EnumSet.noneOf(Feature.class);
        common.addAll(features);
        common.retainAll(other.features);
        String dt = doubleType.equals(other.doubleType) ? doubleType : null;
        if (dt == null) {
            common.remove(Feature.TYPE_DOUBLE);
            dt = doubleType;
        }
        String vt = varcharType.equals(other.varcharType) ? varcharType : null;
        if (vt == null) {
            common.remove(Feature.TYPE_VARCHAR);
            vt = varcharType;
        }
        // CONCAT() where either side needs it: || is OR there, and the engines with || here have CONCAT() too
        // (Derby aside, which has no MariaDB-like partner to intersect with)
        Concat cc = concat == other.concat ? concat : Concat.FUNCTION;
        return new Dialect(name + "∩" + other.name, common, dt, vt, cc);
    }

    /** Features nearly every SQL engine has; targets start from this and add or remove. */
    public static EnumSet<Feature> core() {
        return EnumSet.of(
                Feature.TYPE_INT, Feature.TYPE_DOUBLE, Feature.TYPE_VARCHAR,
                Feature.PRIMARY_KEY, Feature.UNIQUE, Feature.NOT_NULL, Feature.CHECK, Feature.DEFAULT,
                Feature.FOREIGN_KEY, Feature.INDEX, Feature.UNIQUE_INDEX,
                Feature.JOIN_INNER, Feature.JOIN_LEFT, Feature.SUBQUERY_IN, Feature.SUBQUERY_EXISTS,
                Feature.SUBQUERY_SCALAR, Feature.AGGREGATE, Feature.GROUP_BY, Feature.ORDER_BY,
                Feature.UNION, Feature.CASE_WHEN, Feature.BETWEEN, Feature.LIKE, Feature.COALESCE,
                Feature.INSERT_SELECT, Feature.MULTI_ROW_INSERT,
                Feature.WRITE_SUBQUERY_SAME_TABLE, Feature.WRITE_SUBQUERY_OTHER_TABLE,
                Feature.UPDATE_SET_SUBQUERY);
    }
}
