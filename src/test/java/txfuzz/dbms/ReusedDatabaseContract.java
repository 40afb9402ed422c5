package txfuzz.dbms;

import org.junit.jupiter.api.Test;

/**
 * What an engine whose databases are reset to new between any runs must do: each such engine's reuse test runs these on
 * its own target. Engines that keep a setup's tables instead run {@link KeptTablesContract}.
 */
public abstract class ReusedDatabaseContract {
    /** The engine's target, reusing its databases. */
    protected abstract Target target();

    /** How many generated cases run one after another on reused databases. */
    protected int generatedCases() {
        return 20;
    }

    @Test
    void generatedCasesLoadOnReusedDatabases() throws Exception {
        ReuseChecks.generatedCasesRunOnReusedDatabases(target(), generatedCases());
    }

    @Test
    void aSessionLeftOpenDiscardsTheDatabase() throws Exception {
        ReuseChecks.openSessionDiscards(target());
    }

    @Test
    void aDatabaseOpenedWhileAnotherIsHeldIsAnotherOne() throws Exception {
        ReuseChecks.nestedDatabasesAreTwo(target());
    }
}
