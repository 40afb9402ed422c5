package txfuzz.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import txfuzz.campaign.Oracles;
import txfuzz.dbms.Targets;

/**
 * Knowledge stays in its package: an oracle's name (from the registry) appears only in oracle/<name>/
 * and its registration line in campaign/Oracles; an engine's name only in dbms/<engine>/ and its
 * registration in dbms/Targets. "Appears" means, in src/main/java with comments left out: a string
 * literal that is a name, or a comma-separated list of names (code acting on a name; prose in help
 * texts and messages may give examples); a reference to the package (txfuzz.oracle.wss,
 * txfuzz.dbms.h2, its classes); for engines also an identifier containing the name (a variable
 * {@code sqlite}, a constant {@code H2_KEYS}).
 */
class NamesStayInTheirPackagesTest {
    private static final Path MAIN = Path.of("src/main/java/txfuzz");

    /** Literals that spell a name but mean something else, each with why. */
    private static final Map<String, String> OTHER_MEANING = Map.of(
            "campaign/JunitXml.java:\"isolation\"", "the property holding the campaign's isolation levels",
            "campaign/Merge.java:\"isolation\"", "summary.json's isolation-levels field, which runs must share to merge",
            "cli/CheckCommand.java:\"isolation\"", "check's summary.json: the isolation level the history was judged at",
            "model/TestCase.java:\"isolation\"", "the case's isolation-level field, named in its format error");

    @Test
    void noOracleOrEngineNameOutsideItsPackage() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String rel = MAIN.relativize(f).toString().replace('\\', '/');
                List<String> lines = Files.readAllLines(f);
                String src = String.join("\n", lines);
                List<String> code = Lexed.of(src, false);
                List<String> withStrings = Lexed.of(src, true);
                for (int i = 0; i < lines.size(); i++) {
                    for (String problem : problems(rel, code.get(i), withStrings.get(i))) {
                        found.add(rel + ":" + (i + 1) + ": " + problem + ": " + lines.get(i).strip());
                    }
                }
            }
        }
        assertEquals("", String.join("\n", found), "names outside their packages (see CONTRIBUTING.md: a new oracle or engine is"
                + " its package plus one registration line)");
    }

    @Test
    void theCheckSeesWhatItForbids() {
        assertTrue(seen("report/X.java", "if (\"postgres\".equals(n)) {").size() == 1);
        assertTrue(!seen("report/X.java", "List.of(\"wss,explicit\")").isEmpty());
        assertTrue(seen("dbms/X.java", "Pattern H2_ERROR_CODE;").size() == 1, "a part of an identifier");
        assertTrue(seen("gen/X.java", "String orderBy(x)").isEmpty(), "orderBy is not derby");
        assertTrue(seen("campaign/X.java", "boolean sqlite = true;").size() == 1);
        assertTrue(seen("campaign/X.java", "x = txfuzz.oracle.isolation.IsolationOracle.NAME;").size() == 1);
        // no file is exempt: the commands built on one oracle's judgement ask the registry for it
        assertTrue(seen("cli/CheckCommand.java", "import txfuzz.oracle.isolation.IsolationOracle;").size() == 1);
        assertTrue(seen("oracle/pattern/PatternRealisation.java", "h = txfuzz.oracle.isolation.IsolationOracle.history(run);").size() == 1);
        assertTrue(seen("cli/X.java", "import txfuzz.dbms.h2.H2Target;").contains("a reference to txfuzz.dbms.h2"));
        assertTrue(seen("dbms/h2/X.java", "return \"h2\";").isEmpty(), "its own package");
        assertTrue(seen("oracle/wss/X.java", "String NAME = \"wss\";").isEmpty(), "its own package");
        assertTrue(seen("cli/X.java", "description = \"e.g. 15.10 for postgres\"").isEmpty(), "prose in help text");
        assertEquals(List.of("a (\"\") b ", "x =  1;"), Lexed.of("a (\"/* no comment */\") b // postgres\nx = /* h2 */ 1;", false));
        assertEquals(List.of("a (\"/* no comment */\") b ", "x =  1;"), Lexed.of("a (\"/* no comment */\") b // postgres\nx = /* h2 */ 1;", true));
    }

    private static List<String> seen(String rel, String text) {
        return problems(rel, Lexed.of(text, false).get(0), Lexed.of(text, true).get(0));
    }

    private static List<String> problems(String rel, String code, String line) {
        List<String> out = new ArrayList<>();
        boolean oraclesRegistry = rel.equals("campaign/Oracles.java") && (line.contains("REGISTRATION") || line.strip().startsWith("import "));
        boolean enginesRegistry = rel.equals("dbms/Targets.java") && (line.contains("Engine()") || line.strip().startsWith("import ")
                || line.contains("DEFAULT ="));
        for (String name : Oracles.names()) {
            if (!rel.startsWith("oracle/" + name + "/") && !oraclesRegistry) {
                check(out, rel, code, line, name, "txfuzz.oracle." + name, false);
            }
        }
        for (String name : Targets.names()) {
            if (!rel.startsWith("dbms/" + name + "/") && !enginesRegistry) {
                check(out, rel, code, line, name, "txfuzz.dbms." + name, true);
            }
        }
        return out;
    }

    private static final Pattern LITERAL = Pattern.compile("\"([^\"\\\\]*)\"");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private static void check(List<String> out, String rel, String code, String raw, String name, String pkg, boolean identifiers) {
        Matcher m = LITERAL.matcher(raw);
        while (m.find()) {
            if (OTHER_MEANING.containsKey(rel + ":" + m.group())) {
                continue;
            }
            List<String> parts = List.of(m.group(1).split(","));
            if (parts.stream().anyMatch(p -> p.strip().equals(name)) && parts.stream().allMatch(p -> isName(p.strip()))) {
                out.add("the literal \"" + m.group(1) + "\"");
            }
        }
        if (Pattern.compile(Pattern.quote(pkg) + "\\b").matcher(code).find()) {
            out.add("a reference to " + pkg);
        }
        if (identifiers) {
            Matcher id = IDENTIFIER.matcher(code);
            while (id.find()) {
                // the identifier's words: camelCase and snake_case parts (orderBy is order + By, not derby)
                for (String part : id.group().split("_|(?<=[a-z0-9])(?=[A-Z])")) {
                    if (part.equalsIgnoreCase(name) && !id.group().equals("txfuzz")) {
                        out.add("the identifier " + id.group());
                        break;
                    }
                }
            }
        }
    }

    private static boolean isName(String s) {
        return Oracles.names().contains(s) || Targets.names().contains(s);
    }

    /** Java source per line with comments removed and, unless {@code keepStrings}, string literals emptied (line count kept). */
    static final class Lexed {
        static List<String> of(String src, boolean keepStrings) {
            StringBuilder sb = new StringBuilder();
            int i = 0;
            while (i < src.length()) {
                char c = src.charAt(i);
                if (src.startsWith("//", i)) {
                    while (i < src.length() && src.charAt(i) != '\n') {
                        i++;
                    }
                } else if (src.startsWith("/*", i)) {
                    int end = src.indexOf("*/", i + 2);
                    end = end < 0 ? src.length() : end + 2;
                    src.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> sb.append('\n'));
                    i = end;
                } else if (src.startsWith("\"\"\"", i)) {
                    int end = src.indexOf("\"\"\"", i + 3);
                    end = end < 0 ? src.length() : end + 3;
                    if (keepStrings) {
                        sb.append(src, i, end);
                    } else {
                        sb.append("\"\"");
                        src.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> sb.append('\n'));
                    }
                    i = end;
                } else if (c == '"' || c == '\'') {
                    int j = i + 1;
                    while (j < src.length() && src.charAt(j) != c) {
                        j += src.charAt(j) == '\\' ? 2 : 1;
                    }
                    if (keepStrings) {
                        sb.append(src, i, Math.min(j + 1, src.length()));
                    } else {
                        sb.append(c).append(c);
                    }
                    i = j + 1;
                } else {
                    sb.append(c);
                    i++;
                }
            }
            return List.of(sb.toString().split("\n", -1));
        }
    }
}
