package txfuzz.oracle;

import java.util.Optional;
import txfuzz.model.TestCase;

/**
 * Shrinks the example case of a study's scenario while its violation keeps appearing (the same oracle, kind and
 * statement: {@link Violation#sameAs}). Given to a study's renderer by the command that writes the study, which owns
 * the reducer, the subjects and the time budget.
 */
@FunctionalInterface
public interface ExampleReducer {
    /** No reduction: every example is shown as generated. */
    ExampleReducer NONE = (c, v) -> Optional.empty();

    /**
     * The smallest confirmed case found within the budget that still shows {@code shown}, and the violation as it
     * shows it; or, when nothing smaller was found or confirmed, why ({@link Reduced#reduced()} false); empty when
     * no reduction was tried.
     */
    Optional<Reduced> reduce(TestCase example, Violation shown);

    /**
     * @param testCase         the reduced case; null when not reduced
     * @param violation        the violation as a run of it shows it (its details are that run's); null when not reduced
     * @param statementsBefore data statements of the example as generated
     * @param statementsAfter  data statements of the reduced case
     * @param why              when not reduced, why in words ("the case as given did not show the violation again"); else null
     */
    record Reduced(TestCase testCase, Violation violation, int statementsBefore, int statementsAfter, String why) {
        public static Reduced not(int statements, String why) {
            return new Reduced(null, null, statements, statements, why);
        }

        public boolean reduced() {
            return testCase != null;
        }
    }
}
