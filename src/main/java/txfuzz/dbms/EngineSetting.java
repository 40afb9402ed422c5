package txfuzz.dbms;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A setting an engine accepts on a subject ({@code h2+MODE=PostgreSQL}): its name as the engine spells
 * it, the values it takes, how the engine applies it (a URL setting, a session variable …) and the
 * manual page that documents it. Which settings exist is engine knowledge: each {@link Engine} lists its own.
 *
 * @param key       as the engine spells it, e.g. "MODE", "sql.syntax_pgs", "innodb_snapshot_isolation"
 * @param values    the accepted values (matched whole, case-insensitively)
 * @param valuesText the accepted values in words, for messages
 * @param appliedAs how txfuzz applies it, e.g. "H2 URL setting ;MODE=…"
 * @param manual    the manual's page for it
 * @param sql       the statement a user runs in the engine's own client for the same effect, {@code %s} standing for the value
 *                  (for a finding's reproduce.sql)
 */
public record EngineSetting(String key, Pattern values, String valuesText, String appliedAs, String manual, String sql) {
    /** A setting that takes one of {@code choices} (any case). */
    public static EngineSetting oneOf(String key, String appliedAs, String manual, String sql, String... choices) {
        String alternatives = String.join("|", java.util.Arrays.stream(choices).map(Pattern::quote).toList());
        return new EngineSetting(key, Pattern.compile(alternatives, Pattern.CASE_INSENSITIVE), String.join(", ", choices), appliedAs, manual, sql);
    }

    /** The statements that give a session of {@code engine} the {@code settings} (in its spellings), in order. */
    public static java.util.List<String> sessionSql(Engine engine, java.util.Map<String, String> settings) {
        java.util.List<String> out = new java.util.ArrayList<>();
        settings.forEach((k, v) -> engine.settings().stream().filter(s -> s.named(k)).findFirst()
                .ifPresent(s -> out.add(String.format(java.util.Locale.ROOT, s.sql(), v))));
        return java.util.List.copyOf(out);
    }

    /** Whether {@code name} names this setting (engines' setting names are case-insensitive). */
    public boolean named(String name) {
        return key.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT));
    }

    /** {@code value} as the engine's own spelling of an accepted value, or empty when it does not take it. */
    public Optional<String> accept(String value) {
        if (value == null || !values.matcher(value).matches()) {
            return Optional.empty();
        }
        for (String choice : valuesText.split(", ")) {
            if (choice.equalsIgnoreCase(value)) {
                return Optional.of(choice);
            }
        }
        return Optional.of(value);
    }
}
