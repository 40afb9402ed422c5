package txfuzz.oracle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Promise;
import txfuzz.dbms.Subject;
import txfuzz.dbms.Target;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.IsolationLevel;

/**
 * What an oracle is made with: the subjects opened for the campaign (the first is its primary target,
 * whose runs every oracle judges), the dialect they all understand, the levels each accepts, and the
 * executor's settings. The campaign opens and closes the subjects; an oracle only uses them.
 *
 * @param subjects the opened subjects, the primary first
 * @param dialect  the subjects' common dialect ({@link Dialect#intersect})
 * @param levels   per subject (by label), the levels its target offers, weakest first
 * @param executor the executor's settings
 * @param ownOracles makes one subject's own oracles (those of the campaign that judge one subject), for an
 *                   oracle that compares subjects and asks each side's own verdict; empty until the registry sets it
 */
public record OracleContext(List<Opened> subjects, Dialect dialect, Map<String, List<IsolationLevel>> levels, ExecutorConfig executor,
                            java.util.function.Function<Target, List<Oracle>> ownOracles) {
    /** One subject and its live target. */
    public record Opened(Subject subject, Target target) {
        /** The mode its runs use: the subject's own, else the target's default. */
        public String mode() {
            return subject.mode() != null ? subject.mode() : target.modes().get(0);
        }
    }

    public OracleContext {
        if (subjects.isEmpty()) {
            throw new IllegalArgumentException("an oracle context needs at least one subject");
        }
        subjects = List.copyOf(subjects);
        levels = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(levels));
    }

    /** The context of {@code subjects}: their common dialect and the levels each offers. */
    public static OracleContext of(List<Opened> subjects, ExecutorConfig executor) {
        Dialect common = subjects.get(0).target().dialect();
        Map<String, List<IsolationLevel>> levels = new LinkedHashMap<>();
        for (Opened o : subjects) {
            if (o != subjects.get(0)) {
                common = common.intersect(o.target().dialect());
            }
            levels.put(o.subject().label(), o.target().isolationLevels());
        }
        return new OracleContext(subjects, common, levels, executor, t -> List.of());
    }

    /** The same context, whose {@link #ownOracles} are made by {@code maker}. */
    public OracleContext withOwnOracles(java.util.function.Function<Target, List<Oracle>> maker) {
        return new OracleContext(subjects, dialect, levels, executor, maker);
    }

    /** The context of one target, as every command that tests one engine has it. */
    public static OracleContext of(Target target, ExecutorConfig executor) {
        Subject s = new Subject(target.name(), null, null, null, Map.of());
        return of(List.of(new Opened(s, target)), executor);
    }

    /** The ways of opening a transaction beyond BEGIN ({@link Target#beginVariants()}) that every subject has. */
    public List<String> beginVariants() {
        List<String> common = new ArrayList<>(primary().beginVariants());
        subjects.forEach(o -> common.retainAll(o.target().beginVariants()));
        return List.copyOf(common);
    }

    /** The campaign's primary target: the one its cases are generated for and its oracles judge. */
    public Target primary() {
        return subjects.get(0).target();
    }

    /**
     * The level {@code other} runs a case at whose primary level is {@code level} (in the primary's
     * {@code mode}). Another version, setting or execution style of the primary's engine: the level of the same
     * name where it has it, whatever it promises there — what such a study measures is what the change does to
     * that level (innodb_snapshot_isolation=ON makes MariaDB's REPEATABLE READ keep snapshot isolation, =OFF only
     * read committed's promise; pairing ON's READ COMMITTED instead would compare two different requests).
     * Another engine: the level of the same name if it keeps the same promise ({@link Target#promise}), else its
     * weakest level keeping it. Empty when it has none: that pair is not compared at that level.
     */
    public Optional<IsolationLevel> levelOf(Opened other, IsolationLevel level, String mode) {
        if (other == subjects.get(0)) {
            return Optional.of(level);
        }
        if (other.subject().dbms().equals(subjects.get(0).subject().dbms()) && other.target().isolationLevels().contains(level)) {
            return Optional.of(level);
        }
        Promise wanted = subjects.get(0).target().promise(level, mode).promise();
        Target t = other.target();
        // several levels may keep one promise (MariaDB's READ COMMITTED and REPEATABLE READ both lose updates): the same name first
        return t.isolationLevels().stream().filter(l -> t.promise(l, other.mode()).promise() == wanted)
                .min(java.util.Comparator.comparing(l -> l != level));
    }

    /** For each other subject with no level keeping {@code level}'s promise, a sentence saying so (the campaign prints them). */
    public List<String> unpaired(IsolationLevel level, String mode) {
        List<String> out = new ArrayList<>();
        Promise wanted = subjects.get(0).target().promise(level, mode).promise();
        for (Opened o : subjects.subList(1, subjects.size())) {
            if (levelOf(o, level, mode).isEmpty()) {
                out.add(o.subject().label() + " has no level that keeps " + wanted.name().replace('_', ' ').toLowerCase(java.util.Locale.ROOT)
                        + " (" + subjects.get(0).subject().label() + " " + level.sql() + "): not compared at " + level.sql());
            }
        }
        return out;
    }
}
