package txfuzz.dbms.server;

/**
 * A database server txfuzz started itself (PostgreSQL's {@code EmbeddedServer}, MariaDB's
 * {@code EmbeddedMariadb}): where it listens, its process, whether it still runs, how to stop it and
 * what it said last. How each is launched and secured (private directories, passwords, leases,
 * checksums) stays with the engine; this is only the common view of a running one.
 */
public interface StartedServer {
    /** The TCP port on 127.0.0.1 it listens on. */
    int port();

    /** The server's (postmaster's, mariadbd's) process id, or -1 when not known. */
    long pid();

    /** Whether the server process still runs. */
    boolean alive();

    /**
     * Stops the server and deletes its private data directory and lease; idempotent, callable from
     * any thread, also while it is still starting; every wait bounded.
     */
    void stop();

    /** What the server wrote last (its log's tail, or its exit value and last lines), for a crash report. */
    String lastWords();
}
