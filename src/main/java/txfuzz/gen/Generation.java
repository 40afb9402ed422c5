package txfuzz.gen;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternCatalogue;
import txfuzz.gen.pattern.PatternRotation;
import txfuzz.model.IsolationLevel;

/**
 * How a campaign makes its cases: at random ({@link CaseGenerator}), from anomaly patterns
 * ({@link PatternCaseGenerator}, APTrans), or both in turn.
 *
 * The generator ({@link #kind}) and the patterns pattern cases rotate through (all of the
 * catalogue by default).
 */
public final class Generation {
    public enum Kind {
        RANDOM, PATTERN, MIXED;

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Kind kind;
    private final List<AnomalyPattern> patterns;
    /** Built once: a campaign asks it for every case. Null for random generation. */
    private final PatternRotation rotation;

    public Generation(Kind kind, List<AnomalyPattern> patterns) {
        this.kind = kind;
        this.patterns = List.copyOf(patterns);
        if (kind != Kind.RANDOM && this.patterns.isEmpty()) {
            throw new IllegalArgumentException("pattern generation needs a pattern");
        }
        this.rotation = kind == Kind.RANDOM ? null : new PatternRotation(this.patterns);
    }

    public Kind kind() {
        return kind;
    }

    public List<AnomalyPattern> patterns() {
        return patterns;
    }

    public static Generation random() {
        return new Generation(Kind.RANDOM, List.of());
    }

    public static Generation patterns(List<AnomalyPattern> patterns) {
        return new Generation(Kind.PATTERN, patterns);
    }

    /**
     * From the command line: {@code generator} random, pattern or mixed; {@code patterns} a
     * comma-separated list of catalogue names or "all" (null: all).
     *
     * @throws IllegalArgumentException saying what is wrong, in one line
     */
    public static Generation parse(String generator, String patterns) {
        Kind k = null;
        for (Kind c : Kind.values()) {
            if (c.word().equalsIgnoreCase(generator.strip())) {
                k = c;
            }
        }
        if (k == null) {
            throw new IllegalArgumentException("unknown generator '" + generator + "': random, pattern or mixed");
        }
        if (k == Kind.RANDOM) {
            if (patterns != null) {
                throw new IllegalArgumentException("--patterns chooses the patterns of --generator pattern or mixed");
            }
            return random();
        }
        return new Generation(k, PatternCatalogue.bundled().select(patterns));
    }

    /**
     * The pattern case {@code slot} (the campaign's how-many-th case at this level and mode) is
     * generated from, or empty for a random case. Mixed generation alternates, random first.
     */
    public Optional<AnomalyPattern> patternFor(IsolationLevel level, long slot) {
        return switch (kind) {
            case RANDOM -> Optional.empty();
            case PATTERN -> Optional.of(rotation.pick(level, slot));
            case MIXED -> slot % 2 == 0 ? Optional.empty() : Optional.of(rotation.pick(level, slot / 2));
        };
    }
}
