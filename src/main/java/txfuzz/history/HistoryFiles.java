package txfuzz.history;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Reads a history file in either form, told apart by its first line: the compact form's header, or JSON lines. */
public final class HistoryFiles {
    private HistoryFiles() {
    }

    public static History read(Path file) throws HistoryFormatException {
        return isCompact(file) ? CompactHistory.read(file) : HistoryJson.read(file);
    }

    /** Whether the file begins with the compact form's header line (of any version: the reader then names the version). */
    public static boolean isCompact(Path file) throws HistoryFormatException {
        byte[] head = new byte[CompactHistory.MAGIC.length];
        try (InputStream in = Files.newInputStream(file)) {
            int n = in.readNBytes(head, 0, head.length);
            return CompactHistory.startsLikeCompact(head, n);
        } catch (NoSuchFileException e) {
            throw new HistoryFormatException(file + ": no such file", e);
        } catch (IOException e) {
            throw new HistoryFormatException(file + ": cannot read: " + e.getMessage(), e);
        }
    }
}
