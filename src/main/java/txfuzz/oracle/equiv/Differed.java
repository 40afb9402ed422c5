package txfuzz.oracle.equiv;

import java.util.List;
import txfuzz.oracle.Evidence;

/**
 * The statements an equiv violation is about: the statement whose result differed (or that used a
 * version its own transaction had replaced), or, for a final state, the writes to the tables that
 * differ. Their kinds sign the finding.
 */
record Differed(List<String> sql) implements Evidence {
    Differed {
        sql = List.copyOf(sql);
    }

    @Override
    public List<String> deviatingSql() {
        return sql;
    }
}
