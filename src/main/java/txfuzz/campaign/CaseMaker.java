package txfuzz.campaign;

import java.util.List;
import txfuzz.dbms.Target;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.gen.PatternCaseGenerator;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/**
 * Case i of a campaign: random, or from the pattern the campaign's {@link txfuzz.gen.Generation}
 * gives for it. The choice depends on how many cases ran before at the same level and mode (so
 * mixed generation does not alias with the level and mode rotation), and on nothing else, so the
 * same seed gives the same cases.
 */
final class CaseMaker {
    private final Target target;
    /** What the cases may use: the target's dialect, or what every subject of the campaign understands. */
    private final txfuzz.dbms.Dialect dialect;
    private final List<String> beginVariants;
    private final CampaignConfig config;
    private final CaseGenerator random;
    private final PatternCaseGenerator patterns;
    private final int slots;

    CaseMaker(Target target, txfuzz.dbms.Dialect dialect, List<String> beginVariants, CampaignConfig config, GenConfig gen) {
        this.target = target;
        this.dialect = dialect;
        this.beginVariants = List.copyOf(beginVariants);
        this.config = config;
        this.random = new CaseGenerator(gen);
        this.patterns = new PatternCaseGenerator(gen);
        List<String> modes = config.modes().isEmpty() ? List.of(target.modes().get(0)) : config.modes();
        this.slots = config.levels().size() * modes.size();
    }

    TestCase make(IsolationLevel level, String mode, long iteration) {
        java.util.Optional<AnomalyPattern> p = config.generation().patternFor(level, iteration / slots);
        return p.isPresent()
                ? patterns.generate(p.get(), target.name(), dialect, beginVariants, level, mode, config.seed(), iteration)
                : random.generate(target.name(), dialect, level, mode, config.seed(), iteration);
    }
}
