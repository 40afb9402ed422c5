package txfuzz.gen.pattern;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.model.IsolationLevel;

/**
 * The anomaly patterns txfuzz generates from: APTrans' Tables 2 and 3, and patterns with aborts,
 * predicate reads and three transactions. They are data ({@code patterns.txt} beside this class,
 * one readable line each), read and checked once when first asked for.
 */
public final class PatternCatalogue {
    static final String RESOURCE = "patterns.txt";

    private final Map<String, AnomalyPattern> byName;

    private PatternCatalogue(Map<String, AnomalyPattern> byName) {
        this.byName = byName;
    }

    private static final class Bundled {
        static final PatternCatalogue INSTANCE = loadBundled();
    }

    /** The catalogue that ships with txfuzz. */
    public static PatternCatalogue bundled() {
        return Bundled.INSTANCE;
    }

    private static PatternCatalogue loadBundled() {
        try (InputStream in = PatternCatalogue.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the pattern catalogue " + RESOURCE + " is missing from the build");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the pattern catalogue: " + e.getMessage(), e);
        } catch (PatternFormatException e) {
            throw new IllegalStateException("the pattern catalogue is broken: " + e.getMessage(), e);
        }
    }

    /** Reads a catalogue: lines {@code name | operations | levels | note}; '#' starts a comment line. */
    public static PatternCatalogue parse(String text) throws PatternFormatException {
        Map<String, AnomalyPattern> out = new LinkedHashMap<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.split("\\|", 4);
            if (fields.length < 3) {
                throw new PatternFormatException("line " + (i + 1) + ": expected 'name | operations | levels | note'");
            }
            AnomalyPattern p;
            try {
                p = AnomalyPattern.parse(fields[0].strip(), fields[1], fields[2], fields.length > 3 ? fields[3] : "");
            } catch (PatternFormatException e) {
                throw new PatternFormatException("line " + (i + 1) + ": " + e.getMessage());
            }
            if (out.putIfAbsent(p.name(), p) != null) {
                throw new PatternFormatException("line " + (i + 1) + ": a second pattern named " + p.name());
            }
        }
        if (out.isEmpty()) {
            throw new PatternFormatException("the catalogue has no patterns");
        }
        return new PatternCatalogue(out);
    }

    public List<AnomalyPattern> all() {
        return List.copyOf(byName.values());
    }

    public Optional<AnomalyPattern> byName(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /**
     * The patterns a comma-separated list names ("lost-update,write-skew", or "all").
     *
     * @throws IllegalArgumentException naming the unknown patterns and where the list of names is
     */
    public List<AnomalyPattern> select(String names) {
        if (names == null || names.isBlank() || names.strip().equalsIgnoreCase("all")) {
            return all();
        }
        List<AnomalyPattern> out = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        for (String n : names.split(",")) {
            String name = n.strip();
            if (name.isEmpty()) {
                continue;
            }
            AnomalyPattern p = byName.get(name);
            if (p == null) {
                unknown.add(name);
            } else if (!out.contains(p)) {
                out.add(p);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown pattern" + (unknown.size() > 1 ? "s " : " ") + String.join(", ", unknown)
                    + " (the names are listed by 'txfuzz patterns' and in docs/patterns.md)");
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--patterns names no pattern");
        }
        return out;
    }

    /** Of {@code from}, those {@code level} proscribes (the targets of a campaign at that level). */
    public static List<AnomalyPattern> proscribedAt(List<AnomalyPattern> from, IsolationLevel level) {
        return from.stream().filter(p -> p.proscribedAt(level)).toList();
    }

    /** Of {@code from}, those {@code level} permits (a campaign's controls). */
    public static List<AnomalyPattern> permittedAt(List<AnomalyPattern> from, IsolationLevel level) {
        return from.stream().filter(p -> !p.proscribedAt(level)).toList();
    }
}
