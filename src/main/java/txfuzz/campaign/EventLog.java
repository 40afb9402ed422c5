package txfuzz.campaign;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * events.jsonl: one JSON object per line, each written and flushed as it happens, so that
 * {@code tail -f} follows a long campaign and a killed one leaves every line it reached whole.
 * A campaign starts the file afresh (its summary.json is replaced too), unless it continues the folder
 * of earlier runs ({@code run --continue}): then it appends, after their lines.
 */
final class EventLog implements AutoCloseable {
    /** One line per object: no indentation, whatever the summary's mapper does. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final Writer out;

    private EventLog(Path file, Writer out) {
        this.file = file;
        this.out = out;
    }

    static EventLog open(Path file, boolean append) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            return new EventLog(file, Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Now, as events spell it (UTC, ISO-8601, milliseconds). */
    static String now() {
        return Instant.ofEpochMilli(System.currentTimeMillis()).toString();
    }

    synchronized void append(CampaignEvent e) {
        try {
            // Jackson escapes line breaks inside strings, so one event is always one line
            out.write(JSON.writeValueAsString(e));
            out.write('\n');
            out.flush();
        } catch (JsonProcessingException x) {
            throw new IllegalStateException("cannot render event " + e, x);
        } catch (IOException x) {
            throw new UncheckedIOException("cannot write " + file + ": " + x.getMessage(), x);
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
