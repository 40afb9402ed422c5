/**
 * The core of the {@code equiv} oracle: TxCheck (Jiang, Liu, Rigger, Su, OSDI 2023), engine-free.
 *
 * <ul>
 *   <li>Model: {@link txfuzz.oracle.equiv.Execution} of {@link txfuzz.oracle.equiv.StmtExec}s, each
 *       with the {@link txfuzz.oracle.equiv.Item}s its output, BWR and AWR held and its
 *       {@link txfuzz.oracle.equiv.VersionSet}s (VSR); {@link txfuzz.oracle.equiv.TxnEnd} per
 *       transaction; {@link txfuzz.oracle.equiv.RunResult} of {@link txfuzz.oracle.equiv.StmtOutcome}s.</li>
 *   <li>{@link txfuzz.oracle.equiv.StatementDependencyGraph}: SDG(H) with the seven
 *       {@link txfuzz.oracle.equiv.DepKind}s (§3.1, Appendix A–B), JGraphT, Mermaid/DOT.</li>
 *   <li>{@link txfuzz.oracle.equiv.Decycler}: blocking scheduling and graph decycling (§3.3, §4).</li>
 *   <li>{@link txfuzz.oracle.equiv.OracleOrders}: seeded topological orders (Alg. 1 OracleGen).</li>
 *   <li>{@link txfuzz.oracle.equiv.ResultComparison}: per-statement and final-state comparison
 *       (Alg. 1 OracleChecking) giving {@link txfuzz.oracle.equiv.Difference}s.</li>
 *   <li>{@link txfuzz.oracle.equiv.EquivCheck}: the four steps over caller-supplied engine callbacks.</li>
 * </ul>
 * Not here yet: capturing these records from a real engine, the Oracle wrapper, reports (docs/equiv.md).
 */
package txfuzz.oracle.equiv;
