package txfuzz.campaign;

import java.util.ArrayList;
import java.util.List;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.OracleContext;
import txfuzz.oracle.OracleRegistration;

/**
 * The oracles of one campaign or command, made in one place from their registrations and one context,
 * and closed together: whoever opens the set closes it (an oracle may own a server of its own).
 */
public final class OracleSet implements AutoCloseable {
    private final List<Oracle> oracles;
    private final OracleContext context;

    OracleSet(List<OracleRegistration> registrations, OracleContext context) {
        this.context = context;
        List<Oracle> made = new ArrayList<>();
        try {
            for (OracleRegistration r : registrations) {
                made.add(r.create(context));
            }
        } catch (RuntimeException e) {
            made.forEach(OracleSet::closeQuietly);
            throw e;
        }
        this.oracles = List.copyOf(made);
    }

    /** The oracles, in the order named. */
    public List<Oracle> oracles() {
        return oracles;
    }

    public OracleContext context() {
        return context;
    }

    /** Closes every oracle, the last made first; the first failure is thrown once all were tried. */
    @Override
    public void close() {
        RuntimeException first = null;
        for (int i = oracles.size() - 1; i >= 0; i--) {
            try {
                oracles.get(i).close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static void closeQuietly(Oracle o) {
        try {
            o.close();
        } catch (RuntimeException e) {
            // already failing: the first error is the one reported
        }
    }
}
