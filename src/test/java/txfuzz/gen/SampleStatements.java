package txfuzz.gen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Targets;
import txfuzz.model.CaseFormatException;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * The statements txfuzz judges, to compare a parsed reading of them with a text reading: the setup and
 * transaction SQL of generated cases of every engine (instrumented, as campaigns run them, and plain) and
 * of every corpus case shipped as a resource (hand-written, in each engine's own spelling).
 */
public final class SampleStatements {
    private SampleStatements() {
    }

    /** The cases: {@code perEngine} generated ones per engine and form (seed 1), then the corpus cases. */
    public static List<TestCase> cases(int perEngine) {
        List<TestCase> out = new ArrayList<>();
        for (Engine e : Targets.engines()) {
            for (boolean instrumented : new boolean[] {true, false}) {
                CaseGenerator g = new CaseGenerator(GenConfig.defaults().withInstrumentation(instrumented));
                for (int i = 0; i < perEngine; i++) {
                    out.add(g.generate(e.name(), e.dialect(), IsolationLevel.SERIALIZABLE, "default", 1, i));
                }
            }
        }
        try (Stream<Path> files = Files.walk(Path.of("src/main/resources/corpus"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".case.json")).sorted().toList()) {
                out.add(CaseJson.read(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (CaseFormatException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    /** Every distinct statement of {@link #cases}: setup, then transactions' statements. */
    public static Set<String> sql(int perEngine) {
        Set<String> out = new LinkedHashSet<>();
        for (TestCase c : cases(perEngine)) {
            out.addAll(c.setup());
            for (Txn t : c.transactions()) {
                for (Stmt s : t.statements()) {
                    out.add(s.sql());
                }
            }
        }
        return out;
    }
}
