package txfuzz.corpus;

import java.util.LinkedHashMap;
import java.util.Map;
import txfuzz.campaign.Corpus.Entry;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.dbms.versions.VersionPin;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;

/**
 * The engines a test class replays corpus entries on, one per engine and checked-on version, opened on
 * first use and closed together (a test class holds one and closes it in its {@code @AfterAll}).
 */
public final class CorpusEngines implements AutoCloseable {
    private final Map<String, Target> targets = new LinkedHashMap<>();
    private final Map<String, Executor> executors = new LinkedHashMap<>();

    /** The engine at the version {@code e} was checked on (in-process engines; a server is the bundled one). */
    public synchronized Executor executor(Entry e) {
        return executors.computeIfAbsent(e.engine() + " " + e.checkedOn(), k -> {
            Target t = Targets.create(e.engine(), VersionPin.options(Targets.engine(e.engine()), e.checkedOn()));
            targets.put(k, t);
            return new Executor(t, ExecutorConfig.defaults());
        });
    }

    @Override
    public synchronized void close() {
        executors.values().forEach(Executor::close);
        targets.values().forEach(Target::close);
        executors.clear();
        targets.clear();
    }
}
