package txfuzz.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Where a command writes its results. Without --out, a folder of its own under {@code txfuzz-out/},
 * named by the UTC time and what ran ({@code txfuzz-out/20261126-221503-h2}), with {@code txfuzz-out/latest}
 * pointing at the newest; runs never share a folder by default. An --out folder that already holds
 * something is refused (its summary.json and index.md would describe folders this run did not write),
 * unless the command continues it ({@code run --continue}).
 */
final class OutFolder {
    /** Where the default folders go, relative to the working directory. */
    static final Path ROOT = Path.of("txfuzz-out");
    static final String LATEST = "latest";
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private final Path dir;
    private final boolean own;

    private OutFolder(Path dir, boolean own) {
        this.dir = dir;
        this.own = own;
    }

    Path dir() {
        return dir;
    }

    /**
     * The folder for this command: {@code given} (--out; null when not given), checked; or a new one named
     * {@code <UTC time>-<what>} under {@link #ROOT}. Made and proved writable before anything runs.
     * {@code option} names --out in messages.
     */
    static OutFolder choose(Path given, String what, String option) {
        return choose(given, what, option, false, false);
    }

    /** As {@link #choose(Path, String, String)}, for a command that can continue a folder ({@code canContinue}: run --continue). */
    static OutFolder choose(Path given, String what, String option, boolean canContinue, boolean continuing) {
        if (given != null) {
            if (!continuing && holdsSomething(given)) {
                throw new Main.UserError(option + " " + given + " is not empty (" + firstEntry(given) + "); give a new folder"
                        + (canContinue ? ", --continue to add this run to it," : "") + " or leave " + option + " out for one of its own under "
                        + ROOT + "/");
            }
            Options.checkOut(given, option);
            return new OutFolder(given, false);
        }
        String stamp = ZonedDateTime.now(ZoneOffset.UTC).format(STAMP) + "-" + what;
        Path dir = ROOT.resolve(stamp);
        for (int n = 2; Files.exists(dir, LinkOption.NOFOLLOW_LINKS); n++) {
            dir = ROOT.resolve(stamp + "-" + n); // two runs started in the same second
        }
        Options.checkOut(dir, "output");
        return new OutFolder(dir, true);
    }

    /**
     * Points {@code txfuzz-out/latest} at this folder (a folder of its own only), replacing the link in one
     * rename so a reader never sees none; a {@code latest} that is not a link (someone's own folder) is left alone.
     */
    void linkLatest() {
        if (!own) {
            return;
        }
        Path latest = ROOT.resolve(LATEST);
        if (Files.exists(latest, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(latest)) {
            return;
        }
        Path tmp = ROOT.resolve("." + LATEST + "-" + ProcessHandle.current().pid());
        try {
            Files.deleteIfExists(tmp);
            Files.createSymbolicLink(tmp, dir.getFileName());
            Files.move(tmp, latest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | UnsupportedOperationException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // a stray hidden link in txfuzz-out: harmless
            }
            System.err.println("txfuzz: note: could not point " + latest + " at " + dir + ": " + Options.reason(e instanceof IOException io ? io
                    : new IOException(e.getMessage())));
        }
    }

    /** Removes a folder of its own that stayed empty (the DBMS could not start): no empty result folders are left behind. */
    void discardIfEmpty() {
        if (own && !holdsSomething(dir)) {
            try {
                Files.deleteIfExists(dir);
            } catch (IOException ignored) {
                // it stays, empty
            }
        }
    }

    /** Whether {@code dir} exists and has anything in it but hidden files. */
    static boolean holdsSomething(Path dir) {
        return firstEntry(dir) != null;
    }

    private static String firstEntry(Path dir) {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, p -> !p.getFileName().toString().startsWith("."))) {
            for (Path p : s) {
                return "it holds " + p.getFileName();
            }
            return null;
        } catch (IOException e) {
            return null; // unreadable: checkOut says so
        }
    }
}
