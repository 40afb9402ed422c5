package txfuzz.dbms;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.model.ExecutionMode;

/**
 * One subject of a campaign: a DBMS, and optionally its version, concurrency mode, execution style
 * and settings, as {@code dbms[@version][:mode|:plain|:prepared][+key=value]...} spells it
 * ({@code postgres@15.17}, {@code hsqldb:mvlocks}, {@code h2:prepared}, {@code h2+MODE=PostgreSQL},
 * {@code mariadb+innodb_snapshot_isolation=ON}). Parsing checks the DBMS, mode and settings against
 * the engine's description and starts nothing.
 *
 * @param dbms      the registry name
 * @param version   the engine version asked for, or null for the default one
 * @param mode      the engine's concurrency mode, or null for its default
 * @param execution how statements reach it, or null for the campaign's choice
 * @param settings  engine settings in the engine's own spellings, in the order given
 */
public record Subject(String dbms, String version, String mode, ExecutionMode execution, Map<String, String> settings) {
    private static final Pattern SPEC = Pattern.compile("([A-Za-z0-9_-]+)(?:@([^:+\\s]+))?((?::[^:+\\s]+)*)((?:\\+[^+=\\s]+=[^+\\s]*)*)");
    private static final Pattern SETTING = Pattern.compile("\\+([^+=\\s]+)=([^+\\s]*)");

    public Subject {
        settings = settings == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    }

    /** The engine's default subject: {@code dbms} as it is, nothing else said. */
    public static Subject of(String dbms) {
        return parse(dbms);
    }

    /** {@code spec} parsed and checked; IllegalArgumentException with a one-line reason when it is malformed or names what the engine lacks. */
    public static Subject parse(String spec) {
        String text = spec == null ? "" : spec.strip();
        Matcher m = SPEC.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("malformed subject '" + text + "': expected dbms[@version][:mode|:plain|:prepared][+key=value]...,"
                    + " e.g. postgres@15.17, hsqldb:mvlocks, h2+MODE=PostgreSQL");
        }
        String dbms = m.group(1).toLowerCase(java.util.Locale.ROOT);
        if (!Targets.exists(dbms)) {
            throw new IllegalArgumentException("unknown DBMS '" + dbms + "' in subject '" + text + "'; known: " + String.join(", ", Targets.names()));
        }
        Engine engine = Targets.engine(dbms);
        String mode = null;
        ExecutionMode execution = null;
        for (String part : m.group(3).isEmpty() ? new String[0] : m.group(3).substring(1).split(":")) {
            ExecutionMode style = executionStyle(part);
            if (style != null) {
                if (execution != null) {
                    throw new IllegalArgumentException("subject '" + text + "' names two execution styles");
                }
                execution = style;
            } else {
                String known = engine.modes().stream().filter(x -> x.equalsIgnoreCase(part)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("unknown mode '" + part + "' in subject '" + text + "'; " + dbms + " has "
                                + String.join(", ", engine.modes()) + " (and the execution styles plain, prepared)"));
                if (mode != null) {
                    throw new IllegalArgumentException("subject '" + text + "' names two modes");
                }
                mode = known;
            }
        }
        Map<String, String> given = new LinkedHashMap<>();
        Matcher s = SETTING.matcher(m.group(4));
        while (s.find()) {
            if (given.keySet().stream().anyMatch(k -> k.equalsIgnoreCase(s.group(1)))) {
                throw new IllegalArgumentException("subject '" + text + "' gives setting " + s.group(1) + " twice");
            }
            given.put(s.group(1), s.group(2));
        }
        Map<String, String> settings;
        try {
            settings = Engine.checkSettings(engine, given);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " (subject '" + text + "')");
        }
        return new Subject(dbms, m.group(2), mode, execution, settings);
    }

    /** Several subjects, comma-separated; IllegalArgumentException for a malformed one or for the same subject twice. */
    public static List<Subject> parseList(String specs) {
        List<Subject> out = new java.util.ArrayList<>();
        for (String part : specs.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            Subject s = parse(part);
            if (out.contains(s)) {
                throw new IllegalArgumentException("subject '" + s.label() + "' is named twice");
            }
            out.add(s);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no subject named");
        }
        return List.copyOf(out);
    }

    private static ExecutionMode executionStyle(String word) {
        for (ExecutionMode e : ExecutionMode.values()) {
            if (e.name().equalsIgnoreCase(word)) {
                return e;
            }
        }
        return null;
    }

    /** The engine's static description. */
    public Engine engine() {
        return Targets.engine(dbms);
    }

    /** The spec again, in its canonical spelling: for reports, folder names and summary.json. */
    public String label() {
        StringBuilder sb = new StringBuilder(dbms);
        if (version != null) {
            sb.append('@').append(version);
        }
        if (mode != null) {
            sb.append(':').append(mode);
        }
        if (execution != null) {
            sb.append(':').append(execution.name().toLowerCase(java.util.Locale.ROOT));
        }
        settings.forEach((k, v) -> sb.append('+').append(k).append('=').append(v));
        return sb.toString();
    }

    /**
     * How to open it: {@code server} (the command line's --url, --user, --server-home; may be null; its
     * version is not used) applies only to a server subject without a version of its own; the subject's
     * version and settings go with it.
     */
    public TargetOptions options(TargetOptions server) {
        TargetOptions base = server == null || version != null || !engine().server() ? TargetOptions.none() : server;
        return base.withVersion(version).withSettings(settings);
    }

    /** The live target, started or connected (the caller closes it). */
    public Target open(TargetOptions server) {
        return Targets.create(dbms, options(server));
    }

    @Override
    public String toString() {
        return label();
    }
}
