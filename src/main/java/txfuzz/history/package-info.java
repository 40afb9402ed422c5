/**
 * Histories and the isolation checker (IsoRel, ISSTA 2025 §2–§4; Adya 1999; Elle, VLDB 2020).
 *
 * <ul>
 *   <li>{@link txfuzz.history.History}: transactions with row-level {@link txfuzz.history.Read}s,
 *       {@link txfuzz.history.Write}s and {@link txfuzz.history.PredicateRead}s keyed by rowId and
 *       wList; JSON lines via {@link txfuzz.history.HistoryJson} (docs/history-format.md, which also
 *       says what the instrumentation must record per statement kind); the same content in a compact binary
 *       form via {@link txfuzz.history.CompactHistory} (delta-coded wLists, written one transaction at a
 *       time), and {@link txfuzz.history.HistoryFiles} reads either.</li>
 *   <li>{@code HistoryColumns}: a history as primitive columns (operations four ints each, rows numbered, a wList
 *       a length on its row's order), what the inference runs on. The compact reader fills them straight from the
 *       file, and its {@code History}'s transactions are made from them on demand; a history of objects goes
 *       through {@code HistoryColumns.of}, so there is one inference.</li>
 *   <li>{@link txfuzz.history.DependencyGraph}: IsoRel Algorithm 1 with the prefix rule for version
 *       orders, ww/wr/rw/so edges ({@link txfuzz.history.Dep}, kept in {@code Edges} as vertex indices grouped by
 *       source vertex and named by their source, made as objects only for witnesses and the JGraphT view), plus the
 *       anomalies that are not cycles (G1a, G1b, dirty update, incompatible order, garbage read, internal,
 *       predicate read miss).</li>
 *   <li>{@code CycleSearch}: SCCs, then the shortest witness cycle per anomaly kind by BFS over
 *       the allowed edge types, honouring IsoRel §3.4's locking-read exemption.</li>
 *   <li>{@link txfuzz.history.Anomaly}, {@link txfuzz.history.IsolationModel}: the taxonomy and
 *       which level proscribes what.</li>
 *   <li>{@link txfuzz.history.IsolationChecker}: the entry point —
 *       {@code check(history, level, permittedByProfile)} gives
 *       {@link txfuzz.history.AnomalyFinding}s with explanation, Mermaid and DOT, and whether each is
 *       a bug candidate; {@code analyze} and {@link txfuzz.history.Analysis#observed()} serve the
 *       isolation table.</li>
 *   <li>{@link txfuzz.history.SyntheticHistory}: generated histories for benchmarks.</li>
 * </ul>
 */
package txfuzz.history;
