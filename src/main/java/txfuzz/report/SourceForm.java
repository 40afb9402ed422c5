package txfuzz.report;

import java.util.Optional;
import txfuzz.dbms.Target;
import txfuzz.exec.Trace;
import txfuzz.model.CaseSource;
import txfuzz.model.TestCase;

/** An imported case written back in the format it was read from (its {@link CaseSource}), as a reproducer. */
public final class SourceForm {
    private SourceForm() {
    }

    /** The file name and text of {@code c} in its source format; empty for a generated case, or when the format does not fit the target. */
    public static Optional<Rendered> render(TestCase c, Trace trace, Target target, String about, String prefix) {
        CaseSource src = c.source();
        if (src == null) {
            return Optional.empty();
        }
        String header = about + "\nRead from " + src.file() + " (" + src.schedule() + ")";
        Optional<String> text = switch (src.format()) {
            case ISOLATION_SPEC -> IsolationTesterSpec.render(c, target, header);
            case MYSQLTEST -> MysqlTestScript.render(c, trace, target, header);
            case SCHEDULE -> Optional.of(ScheduleText.render(c, header));
        };
        return text.map(t -> new Rendered(prefix + "reproduce." + src.format().extension(), t));
    }

    /** A reproducer's file name and contents. */
    public record Rendered(String fileName, String text) {
    }
}
