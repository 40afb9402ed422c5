package txfuzz.history;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A row version's write list: the ids of the transactions that wrote the row, oldest first, one
 * entry per write (a transaction that writes a row twice appears twice). {@link History#INITIAL}
 * (0) is the loader of the initial rows. Because every write appends, each observed wList is a
 * prefix of the row's version order (Elle's list-append trick, IsoRel §3.1.2).
 */
public final class WList {
    /**
     * The entries are the first {@code length} of {@code ids}. A reader shares one array among all
     * the observed versions of a row (each a prefix of the next), so a history of a million
     * transactions holds each row's order once rather than once per operation.
     */
    private final long[] ids;
    private final int length;

    private WList(long[] ids) {
        this(ids, ids.length);
    }

    private WList(long[] ids, int length) {
        this.ids = ids;
        this.length = length;
    }

    /** The first {@code length} entries of {@code ids}, which the caller must never change (shared, not copied). */
    static WList sharedPrefix(long[] ids, int length) {
        if (length < 1 || length > ids.length) {
            throw new IllegalArgumentException("a wList names at least one writer");
        }
        return new WList(ids, length);
    }

    public static WList of(long... ids) {
        if (ids.length == 0) {
            throw new IllegalArgumentException("a wList names at least one writer");
        }
        return new WList(ids.clone());
    }

    /** A list over {@code ids}, which the caller hands over (no copy): for readers that build the array themselves. */
    static WList owning(long[] ids) {
        if (ids.length == 0) {
            throw new IllegalArgumentException("a wList names at least one writer");
        }
        return new WList(ids);
    }

    @JsonCreator
    public static WList of(List<Long> ids) {
        if (ids == null || ids.isEmpty()) {
            throw new IllegalArgumentException("a wList names at least one writer");
        }
        long[] a = new long[ids.size()];
        for (int i = 0; i < a.length; i++) {
            Long id = ids.get(i);
            if (id == null || id < 0) {
                throw new IllegalArgumentException("wList entries are transaction ids >= 0, not " + id);
            }
            a[i] = id;
        }
        return new WList(a);
    }

    /** Parses the text form an instrumented column holds: "T0,T3,T7", "0,3,7", "T0, T3" or "0 3 7". */
    public static WList parse(String text) {
        String[] parts = text.trim().split("[,\\s]+");
        long[] a = new long[parts.length];
        int n = 0;
        for (String p : parts) {
            if (p.isEmpty()) {
                continue;
            }
            String digits = p.charAt(0) == 'T' || p.charAt(0) == 't' ? p.substring(1) : p;
            try {
                a[n++] = Long.parseLong(digits);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a wList: \"" + text + "\"");
            }
        }
        if (n == 0) {
            throw new IllegalArgumentException("empty wList: \"" + text + "\"");
        }
        return new WList(Arrays.copyOf(a, n));
    }

    public int size() {
        return length;
    }

    public long get(int i) {
        return ids[Objects.checkIndex(i, length)];
    }

    public long last() {
        return ids[length - 1];
    }

    /** This list followed by {@code writer}: the version a write by {@code writer} installs on top of this one. */
    public WList append(long writer) {
        long[] a = Arrays.copyOf(ids, length + 1);
        a[length] = writer;
        return new WList(a);
    }

    /** The first {@code n} entries. */
    public WList prefix(int n) {
        return n == length ? this : new WList(Arrays.copyOf(ids, n));
    }

    public boolean startsWith(WList p) {
        return startsWith(p.ids, p.length);
    }

    boolean startsWith(long[] p, int n) {
        if (n > length) {
            return false;
        }
        if (p == ids) {
            return true; // prefixes of one shared order
        }
        for (int i = 0; i < n; i++) {
            if (ids[i] != p[i]) {
                return false;
            }
        }
        return true;
    }

    public boolean contains(long id) {
        for (int i = 0; i < length; i++) {
            if (ids[i] == id) {
                return true;
            }
        }
        return false;
    }

    /** The entries: the first {@link #size()} of this array, which may be longer (and must not be changed). */
    long[] raw() {
        return ids;
    }

    @JsonValue
    public long[] toArray() {
        return Arrays.copyOf(ids, length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WList w && Arrays.equals(ids, 0, length, w.ids, 0, w.length);
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (int i = 0; i < length; i++) {
            h = 31 * h + Long.hashCode(ids[i]);
        }
        return h;
    }

    /** "T0,T2,T5". */
    @Override
    public String toString() {
        return text(ids, length);
    }

    static String text(long[] ids, int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append('T').append(ids[i]);
        }
        return sb.toString();
    }
}
