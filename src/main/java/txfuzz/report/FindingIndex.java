package txfuzz.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * De-duplication of a campaign's findings by {@link Signature}, and {@code findings/index.md}.
 *
 * <p>A <em>group</em> is one unique finding: its representative (the first finding with that
 * signature's key) and the later findings that duplicate it. A finding joins a group when its
 * signature's key (header and cause, {@link Signature#sameBug}) is the group's — before reduction
 * too (see {@link #covering}): a case that shows the same cause is the same bug as far as txfuzz
 * can tell, so the campaign saves the reduction. Only the exact key counts: a superset of a
 * reduced finding's deviating statement kinds is no evidence of the same bug (a DELETE that went
 * through beside an UPDATE that did is another bug than the UPDATE alone). The case's statement
 * kinds and features are no part of the grouping; index.md shows the representative's beside its key.
 * Not thread-safe: owned by one campaign loop.
 */
public final class FindingIndex {
    /** One unique finding and its duplicates. */
    public static final class Group {
        private final Signature signature;
        private final String representative;
        private final String description;
        private final boolean reduced;
        private final int order;
        private final List<String> duplicates = new ArrayList<>();

        Group(Signature signature, String representative, String description, boolean reduced, int order) {
            this.signature = signature;
            this.representative = representative;
            this.description = description;
            this.reduced = reduced;
            this.order = order;
        }

        public Signature signature() {
            return signature;
        }

        /** Id of the first finding with this signature: the one to read and report. */
        public String representative() {
            return representative;
        }

        public String description() {
            return description;
        }

        /** The representative's signature comes from a reduced case. */
        public boolean reduced() {
            return reduced;
        }

        public List<String> duplicates() {
            return List.copyOf(duplicates);
        }
    }

    /**
     * A unique finding an earlier run filed in the same output folder ({@code run --continue}), as its
     * summary.json lists it: shown and counted in index.md beside this run's, never matched against them
     * (its signature's key is not in summary.json, only its id).
     */
    public record Earlier(String signatureId, String text, String classification, String representative, String description,
                          List<String> duplicates) {
        public Earlier {
            duplicates = List.copyOf(duplicates);
        }
    }

    private final List<Group> groups = new ArrayList<>();
    private final List<Earlier> earlier = new ArrayList<>();

    /** Adds the unique findings earlier runs filed in this folder (see {@link Earlier}); index.md and the counts cover them. */
    public void carry(List<Earlier> earlierRuns) {
        earlier.addAll(earlierRuns);
    }

    /** The earlier runs' unique findings carried over, oldest first. */
    public List<Earlier> earlier() {
        return List.copyOf(earlier);
    }

    /** The group with this signature's key, if any. */
    public Optional<Group> exact(Signature s) {
        return groups.stream().filter(g -> g.signature.sameBug(s)).findFirst();
    }

    /** For a case not yet reduced: the group with its signature's key, whose duplicate it is without reduction. */
    public Optional<Group> covering(Signature unreduced) {
        return exact(unreduced);
    }

    /**
     * Files finding {@code id} under its (final) signature: the representative of a new group, or
     * a duplicate of the group with that signature. Returns the group.
     */
    public Group add(String id, Signature s, String description, boolean reduced) {
        Optional<Group> g = exact(s);
        if (g.isPresent()) {
            g.get().duplicates.add(id);
            return g.get();
        }
        Group fresh = new Group(s, id, description, reduced, groups.size());
        groups.add(fresh);
        return fresh;
    }

    /** Files finding {@code id} as a duplicate of {@code g} (found by {@link #covering}). */
    public void addDuplicate(Group g, String id) {
        g.duplicates.add(id);
    }

    /** This run's unique findings, oldest first (earlier runs' are {@link #earlier()}). */
    public List<Group> groups() {
        return List.copyOf(groups);
    }

    /** Unique findings in the folder: this run's and the earlier runs' carried over. */
    public int unique() {
        return groups.size() + earlier.size();
    }

    public int unique(String classification) {
        return (int) (groups.stream().filter(g -> g.signature.classification().equals(classification)).count()
                + earlier.stream().filter(e -> classification.equals(e.classification())).count());
    }

    public int duplicates() {
        return groups.stream().mapToInt(g -> g.duplicates.size()).sum() + earlier.stream().mapToInt(e -> e.duplicates().size()).sum();
    }

    private static final List<String[]> SECTIONS = List.of(new String[] {"bug-candidate", "Bug candidates"},
            new String[] {"documented", "Documented behaviour"},
            new String[] {"not-promised", "Not promised (every promise of the level holds; filed with --not-promised)"},
            new String[] {"flaky", "Flaky (not reproduced by a second run)"},
            new String[] {"instrumentation-effect", "Instrumentation effects"});

    /** index.md: the unique findings, newest first, by classification. Links are relative to findings/. */
    public String render(String dbmsVersion, long seed) {
        StringBuilder md = new StringBuilder("# txfuzz findings: ").append(dbmsVersion).append(", seed ").append(seed).append("\n\n");
        int total = unique() + duplicates();
        md.append(unique()).append(" unique finding").append(unique() == 1 ? "" : "s").append(" (")
                .append(unique("bug-candidate")).append(" bug candidate").append(unique("bug-candidate") == 1 ? "" : "s").append(", ")
                .append(unique("documented")).append(" documented, ").append(unique("flaky")).append(" flaky) among ")
                .append(total).append(" finding").append(total == 1 ? "" : "s").append("; ").append(duplicates())
                .append(" duplicate").append(duplicates() == 1 ? "" : "s")
                .append(". Each unique finding's README.md is a ready bug report; duplicates share its signature (the case's statement kinds and SQL features, shown under it, are not part of it).\n");
        for (String[] section : SECTIONS) {
            List<Group> in = new ArrayList<>(groups.stream().filter(g -> g.signature.classification().equals(section[0])).toList());
            in.sort(Comparator.comparingInt((Group g) -> g.order).reversed());
            List<Earlier> before = new ArrayList<>(earlier.stream().filter(e -> section[0].equals(e.classification())).toList());
            java.util.Collections.reverse(before);
            if (in.isEmpty() && before.isEmpty()) {
                continue;
            }
            md.append("\n## ").append(section[1]).append(" (newest first)\n\n");
            md.append("| finding | classification | signature | description | duplicates |\n|---|---|---|---|---|\n");
            for (Group g : in) {
                md.append("| [").append(g.representative).append("](").append(g.representative).append("/README.md) | ")
                        .append(g.signature.classification()).append(" | `").append(g.signature.id()).append("` ")
                        .append(cell(g.signature.text())).append("<br>case: ").append(cell(g.signature.caseText())).append(" | ").append(cell(g.description)).append(" | ")
                        .append(g.duplicates.size());
                if (!g.duplicates.isEmpty()) {
                    List<String> shown = new ArrayList<>(g.duplicates.subList(Math.max(0, g.duplicates.size() - 5), g.duplicates.size()));
                    java.util.Collections.reverse(shown);
                    md.append(": ").append(String.join(", ", shown));
                    if (g.duplicates.size() > shown.size()) {
                        md.append(", …");
                    }
                }
                md.append(" |\n");
            }
            for (Earlier e : before) {
                md.append("| [").append(e.representative()).append("](").append(e.representative()).append("/README.md) | ")
                        .append(e.classification()).append(" | `").append(e.signatureId()).append("` ").append(cell(e.text()))
                        .append("<br>(an earlier run in this folder) | ").append(cell(e.description())).append(" | ").append(e.duplicates().size())
                        .append(e.duplicates().isEmpty() ? "" : ": " + String.join(", ", e.duplicates())).append(" |\n");
            }
        }
        return md.toString();
    }

    /** Writes {@code findingsDir/index.md} atomically. */
    public void write(Path findingsDir, String dbmsVersion, long seed) {
        try {
            Files.createDirectories(findingsDir);
            Path tmp = findingsDir.resolve("index.md.tmp");
            Files.writeString(tmp, render(dbmsVersion, seed));
            Files.move(tmp, findingsDir.resolve("index.md"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + findingsDir.resolve("index.md") + ": " + e.getMessage(), e);
        }
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }
}
