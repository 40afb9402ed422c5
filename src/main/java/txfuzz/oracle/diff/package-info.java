/**
 * The {@code diff} oracle: DT2 (Cui, Dou et al., ASE 2022), one case in one submitted order on several
 * subjects (engines, versions, modes, execution styles), compared statement by statement.
 *
 * <ul>
 *   <li>Engine-free core: {@link txfuzz.oracle.diff.TraceComparison} turns two {@link txfuzz.oracle.diff.SideRun}s
 *       into a {@link txfuzz.oracle.diff.Comparison} (agree, the first {@link txfuzz.oracle.diff.Divergence}, or
 *       not comparable; rows as lists where {@link txfuzz.oracle.diff.TotalOrder} finds a total ORDER BY); {@link txfuzz.oracle.diff.Comparison#confirmedBy} drops divergences a second run does
 *       not show (flaky).</li>
 *   <li>{@link txfuzz.oracle.diff.Triage}: a confirmed divergence becomes a {@link txfuzz.oracle.diff.Triaged}
 *       {@link txfuzz.oracle.diff.Label} with its {@link txfuzz.oracle.diff.Cause}, evidence and each side's
 *       documentation; {@link txfuzz.oracle.diff.PromisedRules} checks the rules both subjects' levels promise when
 *       no own oracle flags the divergence; {@link txfuzz.oracle.diff.DiffSignature} names the scenario. Between two
 *       releases of one engine, {@link txfuzz.oracle.diff.VersionBoundary} replays the scenario's first case on the
 *       releases between them (once per scenario) and names the release it changed in, with that release's notes.</li>
 *   <li>Reports: {@link txfuzz.oracle.diff.SideBySide} (both traces, the divergence marked, each side's
 *       verdicts); {@link txfuzz.oracle.diff.Study} and {@link txfuzz.oracle.diff.StudyReport} (compatibility.md).</li>
 *   <li>{@link txfuzz.oracle.diff.DiffOracle}: judges a primary run against each
 *       {@link txfuzz.oracle.diff.OtherSubject}, which it runs with executors of its own (closed with it).</li>
 * </ul>
 * Differences from DT2's code (DiffChecker, TxnPairExecutor): statements are matched by reference rather than by
 * position in the execution order; blocking comes from the engine's lock probe, not a 2 s timeout; deadlocks and
 * errors are told apart by error class, not by message text; every divergence is confirmed by a second run of
 * both sides; warnings are not compared (txfuzz's results carry none).
 */
package txfuzz.oracle.diff;
