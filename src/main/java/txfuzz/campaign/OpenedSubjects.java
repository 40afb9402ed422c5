package txfuzz.campaign;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import txfuzz.dbms.Subject;
import txfuzz.dbms.Target;
import txfuzz.exec.ExecutorConfig;
import txfuzz.oracle.OracleContext;

/**
 * A campaign's subjects, opened in order and closed together: when one cannot open, those already
 * open are closed before the error goes on; {@link #close} closes every one, once (the shutdown hook
 * after Ctrl-C and the normal exit may both call it), even when closing one fails.
 */
public final class OpenedSubjects implements AutoCloseable {
    private final List<OracleContext.Opened> opened;
    private final AtomicBoolean closed = new AtomicBoolean();

    private OpenedSubjects(List<OracleContext.Opened> opened) {
        this.opened = List.copyOf(opened);
    }

    /** Opens each of {@code subjects} with {@code opener} (which starts or connects it), the primary first. */
    public static OpenedSubjects open(List<Subject> subjects, Function<Subject, Target> opener) {
        List<OracleContext.Opened> out = new ArrayList<>();
        try {
            for (Subject s : subjects) {
                out.add(new OracleContext.Opened(s, opener.apply(s)));
            }
        } catch (RuntimeException e) {
            new OpenedSubjects(out).close();
            throw e;
        }
        return new OpenedSubjects(out);
    }

    public List<OracleContext.Opened> subjects() {
        return opened;
    }

    /** The primary subject's target: the campaign's cases are made for it. */
    public Target primary() {
        return opened.get(0).target();
    }

    /** The oracles' context over these subjects. */
    public OracleContext context(ExecutorConfig executor) {
        return OracleContext.of(opened, executor);
    }

    /** The subjects' labels, the primary first (summary.json's meta). */
    public List<String> labels() {
        return opened.stream().map(o -> o.subject().label()).toList();
    }

    /** Closes every subject, the last opened first; the first failure is thrown after all were tried. Later calls do nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        RuntimeException first = null;
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).target().close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
