package txfuzz.dbms.mariadb;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The TRANSACTIONS section of {@code SHOW ENGINE INNODB STATUS}: which sessions wait for a lock and,
 * when the server lists locks ({@code innodb_status_output_locks=ON}), who holds the record they wait
 * for.
 *
 * <p>Why not information_schema.INNODB_TRX / INNODB_LOCK_WAITS: InnoDB fills those from one
 * server-wide cache that it refreshes only when nobody has read it for 100 ms
 * (trx_i_s_cache, CACHE_MIN_IDLE_TIME). A probe that polls every few milliseconds therefore reads
 * the same stale snapshot forever and never sees a new lock wait (measured on 10.11.5). The monitor
 * output is built on each call (~0.4 ms for a few transactions).
 */
final class InnodbStatus {
    private static final String THREAD_ID = " thread id ";
    private static final Pattern RECORD_LOCKS = Pattern.compile("^RECORD LOCKS space id (\\d+) page no (\\d+) .*$");
    private static final Pattern HEAP = Pattern.compile("^Record lock, heap no (\\d+)\\b.*$");

    /** What one transaction block says. */
    private record Trx(String thread, boolean waiting, Set<String> waitingFor, Set<String> holds) {
    }

    private final Map<String, Trx> byThread = new HashMap<>();
    /** Waiting transactions printed without a thread id (see {@link #anonymousWait}). */
    private final List<Trx> anonymousWaiters = new ArrayList<>();

    private InnodbStatus(List<Trx> trxs) {
        for (Trx t : trxs) {
            if (t.thread != null) {
                byThread.put(t.thread, t);
            } else if (t.waiting) {
                anonymousWaiters.add(t);
            }
        }
    }

    /** The TRANSACTIONS section of the Status column as InnoDB printed it (for a report), or "" when there is none. */
    static String transactionsSection(String status) {
        int start = status.indexOf("\nTRANSACTIONS\n");
        if (start < 0) {
            return "";
        }
        int end = status.indexOf("\n--------\nFILE I/O", start);
        return status.substring(start + 1, end < 0 ? status.length() : end).strip();
    }

    /** Parses the Status column of SHOW ENGINE INNODB STATUS. */
    static InnodbStatus parse(String status) {
        int start = status.indexOf("\n---TRANSACTION ");
        List<Trx> out = new ArrayList<>();
        if (start < 0) {
            return new InnodbStatus(out);
        }
        int end = status.indexOf("\n--------\nFILE I/O", start);
        String section = status.substring(start + 1, end < 0 ? status.length() : end);
        // the lock probe parses this for most statements of a campaign: plain searches, a regular expression only on
        // the lines that can match one (the record dumps under every lock are most of the lines)
        for (int from = 0; from < section.length(); ) {
            int next = section.indexOf("\n---TRANSACTION ", from);
            out.add(parseBlock(section.substring(from, next < 0 ? section.length() : next)));
            from = next < 0 ? section.length() : next + 1;
        }
        return new InnodbStatus(out);
    }

    private static Trx parseBlock(String block) {
        String thread = threadOf(block);
        boolean waiting = false;
        Set<String> waitingFor = new LinkedHashSet<>();
        Set<String> holds = new LinkedHashSet<>();
        String[] lines = block.split("\n");
        // state: 0 = not in a lock list, 1 = after "TRX HAS BEEN WAITING", 2 = in a granted lock's record list
        int mode = 0;
        String page = null;
        for (String line : lines) {
            if (line.startsWith("LOCK WAIT ")) {
                waiting = true;
            }
            if (line.startsWith("------- TRX HAS BEEN WAITING")) {
                waiting = true;
                mode = 1;
                page = null;
                continue;
            }
            if (line.startsWith("------------------")) {
                mode = 0; // end of the waited-for lock
                page = null;
                continue;
            }
            Matcher r = line.startsWith("RECORD LOCKS ") ? RECORD_LOCKS.matcher(line) : null;
            if (r != null && r.matches()) {
                String key = r.group(1) + ":" + r.group(2);
                if (mode == 1) {
                    page = key;
                } else {
                    // a lock this transaction holds, unless it is the one it is still waiting for
                    page = line.contains(" waiting") ? null : key;
                    mode = 2;
                }
                continue;
            }
            if (line.startsWith("TABLE LOCK ")) {
                if (mode == 2) {
                    page = null;
                }
                continue;
            }
            if (page == null || !line.startsWith("Record lock, heap no ")) {
                continue;
            }
            Matcher h = HEAP.matcher(line);
            if (h.matches()) {
                (mode == 1 ? waitingFor : holds).add(page + ":" + h.group(1));
            }
        }
        return new Trx(thread, waiting, waitingFor, holds);
    }

    /** The number after the block's first "MySQL thread id " or "MariaDB thread id ", or null. */
    private static String threadOf(String block) {
        for (int at = block.indexOf(THREAD_ID); at >= 0; at = block.indexOf(THREAD_ID, at + 1)) {
            if (block.startsWith("MySQL", at - 5) || block.startsWith("MariaDB", at - 7)) {
                int from = at + THREAD_ID.length();
                int to = from;
                while (to < block.length() && block.charAt(to) >= '0' && block.charAt(to) <= '9') {
                    to++;
                }
                if (to > from) {
                    return block.substring(from, to);
                }
            }
        }
        return null;
    }

    /**
     * Empty when session {@code thread} does not wait; otherwise the sessions holding a lock on the
     * record it waits for (an empty set when the output lists no locks).
     */
    Optional<Set<String>> waitsFor(String thread) {
        Trx t = byThread.get(thread);
        if (t == null || !t.waiting) {
            return Optional.empty();
        }
        Set<String> blockers = new LinkedHashSet<>();
        for (Trx other : byThread.values()) {
            if (other != t && other.holds.stream().anyMatch(t.waitingFor::contains)) {
                blockers.add(other.thread);
            }
        }
        return Optional.of(Set.copyOf(blockers));
    }

    /**
     * Whether some transaction waits for a lock but the output does not say whose thread it is, and if
     * so the sessions holding what they wait for. MariaDB 10.11.5 prints a waiting transaction that
     * way when it was chosen as a deadlock victim inside {@code DELETE ... WHERE EXISTS (SELECT ...
     * FROM the same table)}: InnoDB rolled the transaction back ("not started", no thread id line),
     * but the statement went on and waits again, as "LOCK WAIT ... trx id 0 lock_mode X waiting".
     */
    Optional<Set<String>> anonymousWait() {
        if (anonymousWaiters.isEmpty()) {
            return Optional.empty();
        }
        Set<String> blockers = new LinkedHashSet<>();
        for (Trx w : anonymousWaiters) {
            for (Trx other : byThread.values()) {
                if (other.holds.stream().anyMatch(w.waitingFor::contains)) {
                    blockers.add(other.thread);
                }
            }
        }
        return Optional.of(Set.copyOf(blockers));
    }

    /** Whether session {@code thread} has a transaction in the output. */
    boolean lists(String thread) {
        return byThread.containsKey(thread);
    }
}
