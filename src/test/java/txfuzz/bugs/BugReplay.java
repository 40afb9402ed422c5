package txfuzz.bugs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import txfuzz.campaign.Corpus;
import txfuzz.campaign.Judge;
import txfuzz.campaign.Oracles;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.CaseJson;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;

/**
 * The reproducers of docs/bugs.md and one replay of them, judged the way {@code txfuzz replay
 * --oracle} judges a case, so a test asserts on the same verdict a person re-checking a bug sees.
 */
public final class BugReplay {
    private BugReplay() {
    }

    /** A corpus entry's case: the file docs/bugs.md tells people to replay and bisect. */
    static TestCase corpusCase(String id) {
        return Corpus.load().entries().stream().filter(e -> e.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no corpus entry " + id)).testCase();
    }

    /** A case kept with these tests (bugs not in the corpus): src/test/resources/txfuzz/bugs/NAME.case.json. */
    public static TestCase testCase(String name) throws Exception {
        String resource = "txfuzz/bugs/" + name + ".case.json";
        try (InputStream in = BugReplay.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new AssertionError("no " + resource + " on the test class path");
            }
            return CaseJson.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), resource);
        } catch (IOException e) {
            throw new AssertionError(resource, e);
        }
    }

    /** One run and its violations as sorted {@code oracle/kind/classification} labels (the corpus's {@code today} form). */
    record Result(String version, Trace trace, List<Violation> violations, Set<String> labels) {
        @Override
        public String toString() {
            return version + ": " + labels + " " + violations;
        }
    }

    static Result replay(Target target, TestCase c, String... oracles) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            List<Violation> violations;
            try (txfuzz.campaign.OracleSet set = Oracles.create(List.of(oracles), txfuzz.oracle.OracleContext.of(target, ExecutorConfig.defaults()))) {
                violations = new Judge(set.oracles(), ex).judge(c, trace);
            }
            Set<String> labels = new TreeSet<>();
            for (Violation v : violations) {
                labels.add(v.oracle() + "/" + v.kind().label() + "/" + v.classification().label());
            }
            return new Result(target.version(), trace, violations, labels);
        }
    }
}
