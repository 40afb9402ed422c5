package txfuzz.report;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.gen.StatementStructure;
import txfuzz.model.ExecutionMode;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;
import txfuzz.oracle.Violation;

/**
 * What a finding is about, for grouping duplicates: one report per bug, not per random case. Its
 * key is the oracle and violation kind, the DBMS, level and mode, the classification, and the
 * <em>cause</em>: what the oracle's evidence singles out whatever else the case holds — an isolation
 * cycle's shape (dependency types in cycle order, one table or several), the statement kinds of the
 * statements that deviated ({@link txfuzz.oracle.Evidence#deviatingSql()}), or an engine assertion.
 * Only where the evidence singles out nothing do the case's statement kinds stand in for it. The key
 * also holds the cause the <em>verdict</em> names ({@link #verdictCause}): which way the run differed
 * from what was expected, or for behaviour explained as documented the mechanism and where it is
 * written, so a bug candidate is never filed under an explained finding, nor two candidates that
 * differ the other way under one another, however alike their statements.
 *
 * <p>The statement kinds and SQL features of the (reduced) case are kept as a secondary key: shown
 * in listings (a bug reached through joins and one through subqueries is still one bug, but the
 * reader wants to see both), never part of the id. {@link #id()} is a short stable hash of the
 * canonical form (the same key gives the same id in every run and on every machine); {@link
 * #text()} is the readable form.
 *
 * @param cause      what identifies the bug within its kind, e.g. {@code rw wr · several tables}, {@code UPDATE}
 * @param verdictCause what the verdict says caused it: for explained behaviour {@code explained by <reference>}; else which
 *                   way the run differed ({@code changed fewer rows than serial}, {@code rows only serial}, an SQLState),
 *                   table names left out; empty when the kind says it all
 * @param statements statement kinds and transaction shapes of the case, e.g. {@code UPDATE}, {@code SELECT FOR UPDATE},
 *                   {@code INSERT ON CONFLICT DO UPDATE}, {@code MERGE}, {@code ROLLBACK}, {@code autocommit}
 * @param features   SQL features of the case, e.g. {@code LEFT JOIN}, {@code subquery}, {@code aggregate}, {@code ORDER BY},
 *                   {@code PRIMARY KEY}, {@code FOREIGN KEY}, {@code CHECK}, {@code index}, {@code prepared}
 */
public record Signature(String oracle, String kind, String classification, String dbms, String level, String mode,
                        List<String> cause, List<String> verdictCause, List<String> statements, List<String> features) {
    /** Bumped whenever detection changes, so ids from different rules never collide by accident (3: the verdict's cause). */
    static final int VERSION = 3;

    public Signature {
        cause = List.copyOf(cause);
        verdictCause = List.copyOf(verdictCause);
        statements = List.copyOf(new TreeSet<>(statements));
        features = List.copyOf(new TreeSet<>(features));
    }

    public static Signature of(TestCase c, Violation v) {
        java.util.Optional<String> identity = v.evidence().caseIndependentIdentity();
        if (identity.isPresent()) {
            // e.g. a server crash is identified by the assertion that failed, whatever the case ran and
            // at which level: the same assertion is the same bug.
            return new Signature(v.oracle(), v.kind().label(), v.classification().label(), c.dbms(), ANY_LEVEL, c.mode(),
                    List.of(identity.get()), List.of(), List.of(), List.of());
        }
        Set<String> statements = new TreeSet<>();
        Set<String> features = new TreeSet<>();
        for (Txn t : c.transactions()) {
            if (!t.explicit()) {
                statements.add("autocommit");
            } else if (t.endsWithRollback()) {
                statements.add("ROLLBACK");
            }
            for (Stmt s : t.body()) {
                if (companion(s)) {
                    continue;
                }
                statements.add(statementKind(s.sql()));
                features.addAll(queryFeatures(normalise(s.sql())));
            }
        }
        for (String sql : c.setup()) {
            features.addAll(schemaFeatures(sql));
        }
        if (c.execution() == ExecutionMode.PREPARED) {
            features.add("prepared");
        }
        return new Signature(v.oracle(), v.kind().label(), v.classification().label(), c.dbms(), c.isolation().shortName(), c.mode(),
                cause(v, statements), verdictCause(v), List.copyOf(statements), List.copyOf(features));
    }

    /**
     * The cause the verdict names. Explained behaviour is signed by the mechanism the violation names ({@link
     * Violation#mechanism()}), or where it names none (documented or any verdict with a reference) by its reference: the
     * mechanism and where the engine writes it down. Anything else by the direction of its {@link
     * txfuzz.oracle.ViolationIdentity identity} — which way the run differed — with table names left out (a generated
     * case's t0 or t1 is chance) and what the kind or the shape already says dropped.
     */
    static List<String> verdictCause(Violation v) {
        if (v.mechanism() != null) {
            return List.of("explained by " + v.mechanism());
        }
        if (v.reference() != null && !v.reference().isBlank()) {
            // an oracle that names no mechanism (a documented anomaly's passage, a level's definition): the reference's head
            return List.of("explained by " + mechanism(v.reference()));
        }
        Optional<String> direction = v.evidence().identity().map(txfuzz.oracle.ViolationIdentity::direction);
        if (direction.isEmpty() || direction.get().isBlank() || direction.get().equals(v.kind().label())
                || direction.equals(v.evidence().shape())) {
            return List.of();
        }
        Set<String> ways = new TreeSet<>();
        for (String part : direction.get().split("; ")) {
            ways.add(TABLE_PREFIX.matcher(part.strip()).replaceFirst(""));
        }
        return List.copyOf(ways);
    }

    /**
     * The mechanism a reference names, without what it says of this case (which rows a scan waited on, the serial order
     * found) or why the promise holds: a manual's quoted sentence, a page, or the rule's name before its first colon,
     * parenthesis, semicolon or comma ("statement-level visibility", "per-table snapshots").
     */
    static String mechanism(String reference) {
        String r = reference.strip();
        if (r.startsWith("\"")) {
            int end = r.indexOf('"', 1);
            return end > 0 ? r.substring(0, end + 1) : r;
        }
        if (r.startsWith("http")) {
            int space = r.indexOf(' ');
            return space > 0 ? r.substring(0, space) : r;
        }
        int cut = r.length();
        for (String stop : List.of(":", " (", ";", ",")) {
            int i = r.indexOf(stop);
            if (i > 0 && i < cut) {
                cut = i;
            }
        }
        return r.substring(0, cut);
    }

    /** A direction part's {@code t1: } naming the table it is about. */
    private static final Pattern TABLE_PREFIX = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*: ");

    /**
     * The same signature without a level, for a failure shown to happen at every level the engine has
     * (the campaign checks that by running its reduced case at each): one bug, whichever level found it.
     */
    public Signature atAnyLevel() {
        return new Signature(oracle, kind, classification, dbms, ANY_LEVEL, mode, cause, verdictCause, statements, features);
    }

    /** The level of a signature that holds at every level. */
    public static final String ANY_LEVEL = "any";

    /**
     * The evidence's shape, then the kinds of the statements it says deviated (sorted: a set); when it
     * singles out neither, the case's statement kinds — the best txfuzz can do without it.
     */
    private static List<String> cause(Violation v, Set<String> caseStatements) {
        List<String> out = new ArrayList<>();
        v.evidence().shape().ifPresent(out::add);
        Set<String> kinds = new TreeSet<>();
        for (String sql : v.evidence().deviatingSql()) {
            kinds.add(statementKind(sql));
        }
        out.addAll(kinds);
        return out.isEmpty() ? List.copyOf(caseStatements) : out;
    }

    /**
     * Row tracking's companion statements (the tag update before a deleting write, the read of the
     * rows a write tagged, the read standing for a subquery's) are the instrument, not the case: the
     * statement they accompany counts.
     */
    private static boolean companion(Stmt s) {
        return s.tracking() != null && s.tracking().role().companion();
    }

    /** Everything but the cause and the secondary key: findings with different headers are never duplicates. */
    public String header() {
        return oracle + "/" + kind + " " + classification + " " + dbms + " " + level + ("default".equals(mode) ? "" : " " + mode);
    }

    /**
     * The canonical form the id hashes: the header, the cause and the verdict's cause; the case's statement kinds and
     * features are not in it.
     */
    public String canonical() {
        return "v" + VERSION + "|" + oracle + "|" + kind + "|" + classification + "|" + dbms + "|" + level + "|" + mode + "|"
                + String.join(",", cause) + (verdictCause.isEmpty() ? "" : "|" + String.join(",", verdictCause));
    }

    /** 12 hex digits of the SHA-256 of {@link #canonical()}. */
    public String id() {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(canonical().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JDK has SHA-256
        }
    }

    /** The same bug as far as txfuzz can tell: the same key, whatever the cases' other statements and features. */
    public boolean sameBug(Signature other) {
        return canonical().equals(other.canonical());
    }

    /**
     * e.g. {@code isolation/read-skew bug-candidate h2 RR · rw wr · several tables}, {@code wss/write-outcome bug-candidate h2 RC
     * · UPDATE · changed fewer rows than serial}.
     */
    public String text() {
        return header() + " · " + (cause.isEmpty() ? "no cause" : String.join(", ", cause))
                + (verdictCause.isEmpty() ? "" : " · " + String.join(", ", verdictCause));
    }

    /** The secondary key, e.g. {@code UPDATE, autocommit · subquery, PRIMARY KEY}: what the case held, not what the bug is. */
    public String caseText() {
        return (statements.isEmpty() ? "no statements" : String.join(", ", statements))
                + " · " + (features.isEmpty() ? "no features" : String.join(", ", features));
    }

    /** Upper case, string literals blanked (their content is data, not SQL), whitespace collapsed. */
    static String normalise(String sql) {
        String noStrings = sql.replaceAll("'(?:[^']|'')*'", "''");
        return noStrings.replaceAll("\\s+", " ").strip().toUpperCase(Locale.ROOT);
    }

    /**
     * The statement kind of {@code sql}, read from its parsed form ({@link StatementStructure}; the common forms from their
     * words, {@link StatementStructure#head}, without a parse); a statement the
     * parser does not read (H2's {@code MERGE INTO … KEY}, Derby's {@code FOR READ ONLY WITH RS}, MariaDB's
     * {@code LOCK IN SHARE MODE SKIP LOCKED}) is named from its text as before ({@link #kindFromText}).
     */
    static String statementKind(String sql) {
        return StatementStructure.head(sql).map(StatementStructure.Head::kind)
                .orElseGet(() -> StatementStructure.of(sql).map(StatementStructure.Parsed::kind).orElseGet(() -> kindFromText(normalise(sql))));
    }

    private static final Pattern INSERT_SELECT = Pattern.compile("^INSERT (?:INTO )?\\S+ (?:\\([^)]*\\) )?\\(?\\s*SELECT\\b");

    /** The statement kind of a normalised statement the parser does not read, from its text (the names {@link StatementStructure} gives). */
    static String kindFromText(String sql) {
        if (sql.startsWith("SELECT") || sql.startsWith("(SELECT") || sql.startsWith("WITH")) {
            if (sql.contains(" FOR UPDATE")) {
                return "SELECT FOR UPDATE";
            }
            if (sql.contains(" FOR SHARE") || sql.contains(" LOCK IN SHARE MODE") || sql.contains(" FOR READ ONLY WITH RS")) {
                return "SELECT FOR SHARE";
            }
            return "SELECT";
        }
        if (sql.startsWith("INSERT")) {
            if (sql.startsWith("INSERT OR REPLACE")) {
                return "INSERT OR REPLACE";
            }
            if (sql.startsWith("INSERT OR IGNORE")) {
                return "INSERT OR IGNORE";
            }
            if (sql.startsWith("INSERT IGNORE")) {
                return "INSERT IGNORE";
            }
            if (sql.contains(" ON CONFLICT")) {
                return sql.contains(" DO NOTHING") ? "INSERT ON CONFLICT DO NOTHING" : "INSERT ON CONFLICT DO UPDATE";
            }
            if (sql.contains(" ON DUPLICATE KEY UPDATE")) {
                return "INSERT ON DUPLICATE KEY UPDATE";
            }
            return INSERT_SELECT.matcher(sql).find() ? "INSERT SELECT" : "INSERT";
        }
        if (sql.startsWith("REPLACE")) {
            return "REPLACE";
        }
        if (sql.startsWith("MERGE")) {
            return sql.contains(" USING ") ? "MERGE" : "MERGE KEY";
        }
        if (sql.startsWith("UPSERT")) {
            return "UPSERT";
        }
        if (sql.startsWith("UPDATE")) {
            return "UPDATE";
        }
        if (sql.startsWith("DELETE")) {
            return "DELETE";
        }
        int space = sql.indexOf(' ');
        return space < 0 ? sql : sql.substring(0, space);
    }

    private static final Pattern JOIN = Pattern.compile("\\b(?:(LEFT|RIGHT|FULL|CROSS|NATURAL|INNER) )?(?:OUTER )?JOIN\\b");
    private static final List<Object[]> QUERY_FEATURES = List.of(
            new Object[] {"subquery", Pattern.compile("\\( ?SELECT\\b")},
            new Object[] {"EXISTS", Pattern.compile("\\bEXISTS ?\\(")},
            new Object[] {"IN list", Pattern.compile("\\bIN ?\\((?! ?SELECT\\b)")},
            new Object[] {"aggregate", Pattern.compile("\\b(?:COUNT|SUM|MIN|MAX|AVG) ?\\(")},
            new Object[] {"GROUP BY", Pattern.compile("\\bGROUP BY\\b")},
            new Object[] {"HAVING", Pattern.compile("\\bHAVING\\b")},
            new Object[] {"DISTINCT", Pattern.compile("\\bDISTINCT\\b")},
            new Object[] {"ORDER BY", Pattern.compile("\\bORDER BY\\b")},
            new Object[] {"LIMIT", Pattern.compile("\\b(?:LIMIT|FETCH FIRST|FETCH NEXT|OFFSET)\\b")},
            new Object[] {"UNION", Pattern.compile("\\bUNION\\b")},
            new Object[] {"INTERSECT/EXCEPT", Pattern.compile("\\b(?:INTERSECT|EXCEPT|MINUS)\\b")},
            new Object[] {"CASE", Pattern.compile("\\bCASE\\b")},
            new Object[] {"COALESCE", Pattern.compile("\\b(?:COALESCE|IFNULL|NULLIF) ?\\(")},
            new Object[] {"BETWEEN", Pattern.compile("\\bBETWEEN\\b")},
            new Object[] {"LIKE", Pattern.compile("\\bLIKE\\b")},
            new Object[] {"IS NULL", Pattern.compile("\\bIS (?:NOT )?NULL\\b")},
            new Object[] {"MERGE WHEN MATCHED UPDATE", Pattern.compile("\\bWHEN MATCHED(?: AND .*?)? THEN UPDATE\\b")},
            new Object[] {"MERGE WHEN MATCHED DELETE", Pattern.compile("\\bWHEN MATCHED(?: AND .*?)? THEN DELETE\\b")},
            new Object[] {"MERGE WHEN NOT MATCHED INSERT", Pattern.compile("\\bWHEN NOT MATCHED(?: AND .*?)? THEN INSERT\\b")});

    /** Features of one (normalised) data statement. */
    static Set<String> queryFeatures(String sql) {
        Set<String> out = new TreeSet<>();
        Matcher m = JOIN.matcher(sql);
        while (m.find()) {
            String k = m.group(1);
            out.add((k == null ? "INNER" : k) + " JOIN");
        }
        for (Object[] f : QUERY_FEATURES) {
            if (((Pattern) f[1]).matcher(sql).find()) {
                out.add((String) f[0]);
            }
        }
        return out;
    }

    /**
     * Constraints and indexes a setup statement declares, read from its parsed form ({@link StatementStructure}; a plain
     * CREATE TABLE or CREATE INDEX from its words, {@link StatementStructure#declared}, without a parse);
     * rows are data, not features. A statement the parser does not read is read from its text ({@link #schemaFeaturesFromText}).
     */
    static Set<String> schemaFeatures(String sql) {
        if (!sql.stripLeading().regionMatches(true, 0, "CREATE", 0, "CREATE".length())) {
            return new TreeSet<>(); // rows and other statements declare nothing: not worth parsing (a setup's INSERTs are long)
        }
        return StatementStructure.declared(sql).or(() -> StatementStructure.of(sql).map(StatementStructure.Parsed::declares))
                .<Set<String>>map(TreeSet::new).orElseGet(() -> schemaFeaturesFromText(normalise(sql)));
    }

    /** Constraints and indexes a normalised setup statement the parser does not read declares, from its text. */
    static Set<String> schemaFeaturesFromText(String sql) {
        Set<String> out = new TreeSet<>();
        if (sql.startsWith("CREATE TABLE")) {
            if (sql.contains("PRIMARY KEY")) {
                out.add("PRIMARY KEY");
            }
            if (Pattern.compile("\\bUNIQUE\\b").matcher(sql).find()) {
                out.add("UNIQUE");
            }
            if (sql.contains(" REFERENCES ")) {
                out.add("FOREIGN KEY");
            }
            if (Pattern.compile("\\bCHECK ?\\(").matcher(sql).find()) {
                out.add("CHECK");
            }
        } else if (sql.startsWith("CREATE UNIQUE INDEX")) {
            out.add("UNIQUE");
            out.add("index");
        } else if (sql.startsWith("CREATE INDEX")) {
            out.add("index");
        }
        return out;
    }

}
