package txfuzz.dbms.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32;

/**
 * What an artifact's archive holds — each file's path, size and CRC-32, as the archive itself records or
 * as read while unpacking it — so that an unpacked copy can be checked before any program of it runs.
 * A copy that differs (a file missing, changed or replaced by a link) was not made by txfuzz from that
 * artifact, or was damaged, and is not run.
 *
 * @param files the regular files of the archive, paths relative to the unpack directory
 */
public record UnpackedFiles(List<Entry> files) {
    /** One regular file of an archive. */
    public record Entry(String path, long size, long crc32) {
    }

    public UnpackedFiles {
        files = List.copyOf(files);
    }

    /** The CRC-32 of a stream, read to its end. */
    public static long crc32(InputStream in) throws IOException {
        CRC32 crc = new CRC32();
        byte[] buf = new byte[1 << 16];
        for (int n; (n = in.read(buf)) > 0; ) {
            crc.update(buf, 0, n);
        }
        return crc.getValue();
    }

    /**
     * IllegalStateException (one line, naming the first file that differs) unless every file under
     * {@code root} is a regular file (not a link) of the recorded size and checksum.
     */
    public void verify(Path root) {
        for (Entry e : files) {
            Path f = root.resolve(e.path()).normalize();
            if (!f.startsWith(root)) {
                throw new IllegalStateException("the archive names a file outside its directory: " + e.path());
            }
            try {
                if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    throw new IllegalStateException(f + " is missing or not a regular file; the unpacked binaries in " + root
                            + " are not the artifact's (delete the directory to unpack them again)");
                }
                long size = Files.size(f);
                long crc;
                try (InputStream in = Files.newInputStream(f, LinkOption.NOFOLLOW_LINKS)) {
                    crc = crc32(in);
                }
                if (size != e.size() || crc != e.crc32()) {
                    throw new IllegalStateException(f + " differs from the artifact's copy (size " + size + " vs " + e.size()
                            + "); the unpacked binaries in " + root + " are not run (delete the directory to unpack them again)");
                }
            } catch (IOException io) {
                throw new UncheckedIOException("cannot check " + f + ": " + io.getMessage(), io);
            }
        }
    }
}
