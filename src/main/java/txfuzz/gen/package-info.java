/**
 * Test-case generation (WriteCheck §3.4, §5.1, §5.2): {@link txfuzz.gen.CaseGenerator} turns
 * (dialect, seed, iteration) into a {@link txfuzz.model.TestCase}; {@link txfuzz.gen.PatternCaseGenerator}
 * turns (anomaly pattern, dialect, seed, iteration) into one whose statements perform the pattern's
 * operations on rows it aims at ({@link txfuzz.gen.PatternRows}, {@link txfuzz.gen.PatternAims}).
 *
 * <p>How features become SQL, chosen so that one spelling works on every engine that has the
 * feature (and so on any intersection of dialects):
 * <ul>
 *   <li>Types: INT, the dialect's double and varchar spellings. Doubles are multiples of 1/4, so
 *       sums are exact in any order; strings are 1–3 letters from 'a'..'e'.</li>
 *   <li>Expressions are typed: strings meet only strings (Derby, DuckDB, PostgreSQL are strict);
 *       no NULL literal outside INSERT VALUES / SET (Derby rejects untyped NULL); no division,
 *       no non-deterministic functions, no LIMIT; negative numbers in parentheses.</li>
 *   <li>Scalar subqueries are always an aggregate without GROUP BY, so they return one row.</li>
 *   <li>FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE only on a one-table SELECT of plain columns with
 *       a subquery-free WHERE and no ORDER BY (Derby 42Y90 and PostgreSQL restrictions).</li>
 *   <li>MERGE: {@code MERGE INTO t USING s x ON (t.a = x.b) WHEN MATCHED [AND ..] THEN UPDATE SET ..
 *       | DELETE WHEN NOT MATCHED [AND ..] THEN INSERT (..) VALUES (..)} with a base-table source
 *       other than the target (Derby accepts no other source) joined on a column unique in the
 *       source, so each target row matches at most one source row.</li>
 *   <li>INSERT_ON_CONFLICT: {@code ON CONFLICT (pk | unique col) DO UPDATE SET .. [WHERE ..]} or
 *       {@code DO NOTHING}, single row, only on tables with a PRIMARY KEY or UNIQUE constraint
 *       (DuckDB refuses a target-less ON CONFLICT elsewhere).</li>
 *   <li>REPLACE: {@code REPLACE INTO t (..) VALUES (..)}; INSERT_ON_DUPLICATE_KEY:
 *       {@code INSERT .. ON DUPLICATE KEY UPDATE c = ..}.</li>
 *   <li>Constraints: column DEFAULT before NOT NULL before CHECK (HSQLDB's order), no negative
 *       DEFAULT (Derby cannot parse {@code DEFAULT -1 CHECK}); PRIMARY KEY, UNIQUE and FOREIGN KEY
 *       as table constraints; a foreign key references an earlier table's single-column PRIMARY KEY
 *       or UNIQUE constraint of the same type (a unique index is not enough for most engines).</li>
 *   <li>Writes in UPDATE/DELETE may read their own table only with WRITE_SUBQUERY_SAME_TABLE and
 *       other tables only with WRITE_SUBQUERY_OTHER_TABLE (MariaDB error 1093).</li>
 * </ul>
 */
package txfuzz.gen;
