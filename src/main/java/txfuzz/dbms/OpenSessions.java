package txfuzz.dbms;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sessions of one database of an engine that has no session ids of its own to offer (it never
 * waits on locks, so no probe names sessions): txfuzz names them and closes them with the database.
 */
public final class OpenSessions {
    private static final AtomicLong NEXT = new AtomicLong();

    private final List<Connection> opened = new CopyOnWriteArrayList<>();
    private final Map<Connection, String> ids = new ConcurrentHashMap<>();

    /** Remembers {@code c} (to close it later) and gives it an id; returns {@code c}. */
    public Connection register(Connection c) {
        opened.add(c);
        ids.put(c, "S" + NEXT.incrementAndGet());
        return c;
    }

    public String id(Connection c) {
        return ids.computeIfAbsent(c, k -> "S" + NEXT.incrementAndGet());
    }

    /** How many of the sessions are still open; forgets those that are closed. */
    public int stillOpen() {
        int open = 0;
        for (Connection c : opened) {
            boolean closed;
            try {
                closed = c.isClosed();
            } catch (SQLException e) {
                closed = false; // cannot tell: count it as open
            }
            if (closed) {
                opened.remove(c);
                ids.remove(c);
            } else {
                open++;
            }
        }
        return open;
    }

    /** Closes every session; one that is closed already is fine. */
    public void closeAll() {
        for (Connection c : opened) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closed already
            }
        }
        opened.clear();
        ids.clear();
    }
}
