package txfuzz.dbms;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/** A real target that counts the databases it is asked for: one per engine run, so a test can see which runs were made. */
public final class DatabaseCountingTarget extends DelegatingTarget {
    private final AtomicInteger databases = new AtomicInteger();

    public DatabaseCountingTarget(Target real) {
        super(real);
    }

    @Override
    public Database freshDatabase() throws SQLException {
        databases.incrementAndGet();
        return real.freshDatabase();
    }

    /** How many databases it was asked for so far. */
    public int databases() {
        return databases.get();
    }
}
