package txfuzz.gen;

/**
 * Size limits of generated test cases (WriteCheck §3.4: small is enough).
 *
 * @param maxTables      tables per case (at least 1)
 * @param maxColumns     columns per table (at least 1)
 * @param maxRows        initial rows per table
 * @param maxTxns        transactions per case (at least 1)
 * @param maxStmtsPerTxn data statements per explicit transaction (at least 1)
 * @param instrumented   row tracking for the isolation checker: every table gets the columns
 *                       {@code rid} and {@code wl}, every transaction is explicit, writes append
 *                       their tag and get companion statements (see {@link CaseGenerator})
 */
public record GenConfig(int maxTables, int maxColumns, int maxRows, int maxTxns, int maxStmtsPerTxn, boolean instrumented) {
    public GenConfig(int maxTables, int maxColumns, int maxRows, int maxTxns, int maxStmtsPerTxn) {
        this(maxTables, maxColumns, maxRows, maxTxns, maxStmtsPerTxn, false);
    }

    public GenConfig withInstrumentation(boolean on) {
        return new GenConfig(maxTables, maxColumns, maxRows, maxTxns, maxStmtsPerTxn, on);
    }

    public GenConfig {
        if (maxTables < 1 || maxColumns < 1 || maxRows < 0 || maxTxns < 1 || maxStmtsPerTxn < 1) {
            throw new IllegalArgumentException("GenConfig limits must be positive (maxRows may be 0): " + maxTables + ", "
                    + maxColumns + ", " + maxRows + ", " + maxTxns + ", " + maxStmtsPerTxn);
        }
    }

    public static GenConfig defaults() {
        return new GenConfig(3, 5, 5, 5, 5);
    }
}
