package txfuzz.history;

/** The kinds of edges of the dependency graph (IsoRel §2.3, Adya §3.3), plus session order. */
public enum DepType {
    /** Write-write: {@code to} installed the version right after {@code from}'s. */
    WW,
    /** Write-read: {@code to} read a version {@code from} wrote. */
    WR,
    /** Read-write (anti-dependency): {@code from} read a version and {@code to} installed the next one. */
    RW,
    /** Session order: {@code to} ran after {@code from} in the same session. */
    SO;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
