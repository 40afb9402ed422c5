package txfuzz.history;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Dependencies in the order the inference found them, each as (from vertex, link, source), in blocks: held in memory, or,
 * when the heap has no room for them beside their grouped copy ({@link Edges}), written to a file as each block fills and
 * read back a block at a time while they are grouped. The file is the user's alone and deleted as soon as it is made (only
 * its open channel keeps it), so nothing is left behind however the process ends. Writing it costs about what reading the
 * history costs; finding every dependency a second time, the alternative, cost about a third of the check at ten million
 * transactions.
 */
final class FoundOrder implements Closeable {
    static final int BLOCK_BITS = 17, BLOCK = 1 << BLOCK_BITS; // 512 KB a column: under the collector's large-object size

    /** The file could not be written (no room left on its disk, say): the caller finds the dependencies twice instead. */
    static final class NoRoom extends RuntimeException {
        NoRoom(IOException cause) {
            super("the dependencies' found order could not be written to a file: " + cause.getMessage(), cause);
        }
    }

    /** A sealed block: its columns, or where they are in a file; {@code count} entries, fewer than {@link #BLOCK} only at a seam. */
    private record Block(int[] from, int[] link, int[] source, FileChannel file, long position, int count) {
    }

    /** Where new files go; null: held in memory. */
    private final Path dir;
    private FileChannel file;
    private long fileEnd;
    private ByteBuffer out;
    private final List<Block> blocks = new ArrayList<>();
    /** Channels of this found order and of those appended to it, closed together. */
    private final List<FileChannel> channels = new ArrayList<>();
    /** The block being filled. */
    private int[] from;
    private int[] link;
    private int[] source;
    private int filling;
    private long size;

    private FoundOrder(Path dir) {
        this.dir = dir;
    }

    static FoundOrder inMemory() {
        return new FoundOrder(null);
    }

    /**
     * Kept in a file in {@code dir}, when it has room for about {@code expectedBytes} more (beside a margin for others);
     * null when it does not, or cannot be written.
     */
    static FoundOrder inFile(Path dir, long expectedBytes) {
        try {
            if (Files.getFileStore(dir).getUsableSpace() < expectedBytes + (512L << 20)) {
                return null;
            }
        } catch (IOException e) {
            return null;
        }
        return new FoundOrder(dir);
    }

    /** Bytes an edge takes in a file. */
    static final int BYTES_PER_EDGE = 12;

    /** Found orders made beside this one, closed with it. */
    private final List<FoundOrder> siblings = new ArrayList<>();

    /** Another found order kept where this one is (for dependencies found beside these, on another thread), closed with it. */
    FoundOrder sibling() {
        FoundOrder s = new FoundOrder(dir);
        siblings.add(s);
        return s;
    }

    void append(int f, int l, int s) {
        if (from == null || filling == from.length) {
            room();
        }
        from[filling] = f;
        link[filling] = l;
        source[filling] = s;
        filling++;
        size++;
    }

    /** Room for the next entry: a new block, or in memory a larger first one (most graphs, a test case's, have a few dozen edges). */
    private void room() {
        if (from == null) {
            int length = dir == null && blocks.isEmpty() ? 64 : BLOCK;
            from = new int[length];
            link = new int[length];
            source = new int[length];
            return;
        }
        if (filling < BLOCK) {
            int n = Math.min(BLOCK, filling * 4);
            from = Arrays.copyOf(from, n);
            link = Arrays.copyOf(link, n);
            source = Arrays.copyOf(source, n);
            return;
        }
        seal();
        if (from == null) {
            room();
        }
    }

    /** Ends the block being filled: kept as it is in memory, or written (its arrays then take the next block). */
    private void seal() {
        if (filling == 0) {
            return;
        }
        if (dir == null) {
            blocks.add(new Block(from, link, source, null, 0, filling));
            from = null;
            link = null;
            source = null;
        } else {
            blocks.add(new Block(null, null, null, written(), fileEnd, filling));
            fileEnd += (long) filling * BYTES_PER_EDGE;
        }
        filling = 0;
    }

    /** Writes the block being filled at the file's end: its from column, then its links, then its sources. */
    private FileChannel written() {
        try {
            if (file == null) {
                Path p = Files.createTempFile(dir, "txfuzz-found-order-", ".bin"); // owner-only on POSIX
                try {
                    file = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    channels.add(file);
                } finally {
                    Files.delete(p); // the open channel keeps it until closed
                }
                out = ByteBuffer.allocateDirect(BLOCK * BYTES_PER_EDGE);
            }
            out.clear();
            out.asIntBuffer().put(from, 0, filling).put(link, 0, filling).put(source, 0, filling);
            out.limit(filling * BYTES_PER_EDGE);
            long at = fileEnd;
            while (out.hasRemaining()) {
                at += file.write(out, at);
            }
            return file;
        } catch (IOException e) {
            throw new NoRoom(e);
        }
    }

    /** Appends {@code later}'s entries, in their order, after these; its file (if any) is closed with this one's. */
    void appendAll(FoundOrder later) {
        seal();
        later.seal();
        blocks.addAll(later.blocks);
        channels.addAll(later.channels);
        later.channels.clear();
        size += later.size;
    }

    /** Seals the last block; returns how many blocks there are. No entry may be appended afterwards. */
    int blocks() {
        seal();
        return blocks.size();
    }

    /** The first block of the second of two stretches of blocks with about as many entries each. */
    int halfway() {
        long seen = 0;
        for (int b = 0; b < blocks.size(); b++) {
            if (2 * seen >= size) {
                return b;
            }
            seen += blocks.get(b).count();
        }
        return blocks.size();
    }

    /** Reads blocks one at a time; one per thread. */
    Reader reader() {
        return new Reader();
    }

    final class Reader {
        int[] from;
        int[] link;
        int[] source;
        int count;
        private int[] fromBuf;
        private int[] linkBuf;
        private int[] sourceBuf;
        private ByteBuffer in;

        /** Loads block {@code b}: its from column only, or all three. */
        void load(int b, boolean allColumns) {
            Block k = blocks.get(b);
            count = k.count();
            if (k.file() == null) {
                from = k.from();
                link = k.link();
                source = k.source();
                return;
            }
            if (in == null) {
                in = ByteBuffer.allocateDirect(BLOCK * BYTES_PER_EDGE);
                fromBuf = new int[BLOCK];
                linkBuf = new int[BLOCK];
                sourceBuf = new int[BLOCK];
            }
            in.clear();
            in.limit((allColumns ? 3 : 1) * count * 4);
            try {
                long at = k.position();
                while (in.hasRemaining()) {
                    int n = k.file().read(in, at);
                    if (n < 0) {
                        throw new IOException("the file ended early");
                    }
                    at += n;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("the dependencies' found order could not be read back from its file", e);
            }
            in.flip();
            var ints = in.asIntBuffer();
            ints.get(fromBuf, 0, count);
            from = fromBuf;
            if (allColumns) {
                ints.get(linkBuf, 0, count).get(sourceBuf, 0, count);
                link = linkBuf;
                source = sourceBuf;
            }
        }
    }

    /** Drops the blocks and closes (so frees) the files. */
    @Override
    public void close() {
        blocks.clear();
        from = null;
        link = null;
        source = null;
        for (FileChannel c : channels) {
            try {
                c.close();
            } catch (IOException e) {
                // deleted already: closing frees its space, and a failure to close leaves nothing to clean
            }
        }
        channels.clear();
        siblings.forEach(FoundOrder::close);
    }
}
