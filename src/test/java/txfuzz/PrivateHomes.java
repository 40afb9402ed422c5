package txfuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Private txfuzz homes for tests that run txfuzz processes: each test (or scenario) gets a home of its own, so it
 * looks only at the processes and files of its own runs, and runs of other tests (in this JVM or another) never meet
 * its leases, servers or lock. The default server binaries are unpacked once per build into {@link #TEMPLATE} (a
 * private home of the build's own, never ~/.cache/txfuzz), by a txfuzz JVM with that home ({@code -Dtxfuzz.home},
 * as a run's first use unpacks them; test JVMs running at once share it safely, as runs do); each JVM has them
 * checked there once. A home asked for with binaries gets hard links to those files (copies where links cannot be
 * made), so it never unpacks them again, and every run in it checks them as it checks any unpacked copy.
 */
public final class PrivateHomes {
    /** The build's own home holding the unpacked binaries (under target/, so {@code mvn clean} removes it). */
    static final Path TEMPLATE = Path.of("target", "txfuzz-test-binaries").toAbsolutePath();
    /** Engine → where its binaries are in {@link #TEMPLATE}, relative to it ({@code postgres/PG-<md5>}, {@code mariadb-<version>}). */
    private static final Map<String, Path> UNPACKED = new HashMap<>();

    private PrivateHomes() {
    }

    /**
     * Makes {@code home} (which must not exist yet; its parent is made if need be), 0700, holding the default
     * binaries of each of {@code engines} ({@code postgres}, {@code mariadb}) where a run that unpacked them left them.
     */
    public static Path withBinaries(Path home, String... engines) {
        List<Path> unpacked = unpacked(engines);
        try {
            Files.createDirectories(home.toAbsolutePath().getParent());
            Files.createDirectory(home, OWNER_ONLY);
            for (Path rel : unpacked) {
                Path to = home.resolve(rel.toString());
                Path d = home;
                for (Path name : rel.getParent() == null ? List.<Path>of() : rel.getParent()) {
                    d = d.resolve(name.toString());
                    if (!Files.isDirectory(d)) {
                        Files.createDirectory(d, OWNER_ONLY);
                    }
                }
                linkTree(TEMPLATE.resolve(rel.toString()), to);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the private home " + home + ": " + e.getMessage(), e);
        }
        return home;
    }

    /**
     * Where runs with {@code home} put the data directories of their servers, named {@code name} ("postgres",
     * "mariadb-runs"): in the home's twin in memory where the machine gives one, else in the home. Either may not exist.
     */
    public static List<Path> dataDirs(Path home, String name) {
        return List.of(txfuzz.dbms.server.MemoryDirectory.location(home.toAbsolutePath().normalize()).resolve(name), home.resolve(name));
    }

    private static final java.nio.file.attribute.FileAttribute<?> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    /** Where the binaries of {@code engines} are in the template, each unpacked (or checked) once per JVM; those missing at the same time. */
    private static synchronized List<Path> unpacked(String... engines) {
        Map<String, Process> unpacking = new HashMap<>();
        try {
            for (String e : engines) {
                if (!UNPACKED.containsKey(e) && !unpacking.containsKey(e)) {
                    List<String> cmd = new ArrayList<>(ChildJvm.command("-Dtxfuzz.home=" + TEMPLATE, "txfuzz.dbms.postgres.UnpackDefaultBinaries", e));
                    unpacking.put(e, new ProcessBuilder(cmd).redirectErrorStream(true).start());
                }
            }
            for (Map.Entry<String, Process> u : unpacking.entrySet()) {
                Process p = u.getValue();
                String said = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                if (!p.waitFor(5, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    throw new IllegalStateException("unpacking the " + u.getKey() + " binaries did not end in 5 minutes");
                }
                if (p.exitValue() != 0) {
                    throw new IllegalStateException("unpacking the " + u.getKey() + " binaries failed (exit " + p.exitValue() + "): " + said);
                }
                Path dir = Path.of(said.strip().lines().reduce((a, b) -> b).orElseThrow());
                if (!dir.startsWith(TEMPLATE)) {
                    throw new IllegalStateException("the " + u.getKey() + " binaries are not in " + TEMPLATE + ": " + said);
                }
                UNPACKED.put(u.getKey(), TEMPLATE.relativize(dir));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while unpacking binaries", e);
        }
        List<Path> out = new ArrayList<>();
        for (String e : engines) {
            out.add(UNPACKED.get(e));
        }
        return out;
    }

    /** {@code from} again at {@code to}: directories made with the same mode, files hard-linked (else copied), links as links. */
    private static void linkTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path f : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(from.relativize(f).toString());
                if (Files.isSymbolicLink(f)) {
                    Files.createSymbolicLink(t, Files.readSymbolicLink(f));
                } else if (Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectory(t, PosixFilePermissions.asFileAttribute(Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS)));
                    Files.setPosixFilePermissions(t, Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS)); // past the umask
                } else {
                    try {
                        Files.createLink(t, f);
                    } catch (FileSystemException | UnsupportedOperationException cannotLink) {
                        Files.copy(f, t, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                    }
                }
            }
        }
    }
}
