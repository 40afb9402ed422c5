package txfuzz.dbms.versions;

import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.sql.Driver;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import txfuzz.dbms.Jdbc;

/**
 * The JDBC driver of an in-process engine: the default version's (txfuzz's own class path, or, for an
 * engine the runnable jar leaves out, resolved like another version), or another
 * version's, resolved from Maven Central and loaded in a class loader of its own whose parent is the
 * platform loader — it sees java.sql but none of txfuzz's classes, so two versions of one engine live
 * side by side in one JVM. A version is loaded once per JVM: its loader stays, like the bundled one.
 */
public final class EngineDrivers {
    /** The version that stands for the newest release Maven Central lists (replay a finding there: is it fixed?). */
    public static final String NEWEST = "newest";
    private static final Map<String, Jdbc> LOADED = new ConcurrentHashMap<>();

    private EngineDrivers() {
    }

    /**
     * The driver for {@code url} of DBMS {@code name}: the bundled one when {@code version} is null or
     * the bundled version, else {@code artifact} at {@code version}. IllegalArgumentException with a
     * one-line reason when that version cannot be had or does not run on this Java.
     */
    public static Jdbc driver(String name, MavenArtifact artifact, String asked, String url) {
        String bundled = BundledVersions.of(name);
        return driverAt(name, artifact, Releases.pick(artifact, asked, bundled), bundled, url);
    }

    private static Jdbc driverAt(String name, MavenArtifact artifact, String version, String bundled, String url) {
        if (version == null || version.equals(bundled)) {
            return LOADED.computeIfAbsent(name + ":bundled", k -> defaultDriver(EngineDrivers.class.getClassLoader(), name, artifact, bundled, url));
        }
        return LOADED.computeIfAbsent(artifact.coordinates(version), k -> load(name, artifact, version, url));
    }

    /**
     * The default version's driver: the one on {@code classPath} (the runnable jar's, or the Maven build's
     * class path), else, for an engine the jar leaves out (DuckDB: 80 MB of native libraries for four
     * platforms), resolved from the local Maven repository or Maven Central like any other version.
     */
    static Jdbc defaultDriver(ClassLoader classPath, String name, MavenArtifact artifact, String version, String url) {
        Driver onClassPath = find(classPath, false, url, name, version);
        return onClassPath != null ? new Jdbc(onClassPath, version) : load(name, artifact, version, url);
    }

    private static Jdbc load(String name, MavenArtifact artifact, String version, String url) {
        List<Path> jars = MavenCentral.get().resolve(artifact, version);
        URL[] urls = jars.stream().map(EngineDrivers::url).toArray(URL[]::new);
        ClassLoader loader = new URLClassLoader(name + "-" + version, urls, ClassLoader.getPlatformClassLoader());
        Driver d = find(loader, true, url, name, version);
        if (d == null) {
            throw new IllegalArgumentException(name + " " + version + " has no JDBC driver for " + url);
        }
        return new Jdbc(d, version);
    }

    /** The driver that takes {@code url}, or null; with {@code own}, only one {@code loader} itself defines (not an ancestor's). */
    private static Driver find(ClassLoader loader, boolean own, String url, String name, String version) {
        try {
            for (Driver d : ServiceLoader.load(Driver.class, loader)) {
                if ((!own || d.getClass().getClassLoader() == loader) && d.acceptsURL(url)) {
                    return d;
                }
            }
        } catch (ServiceConfigurationError | LinkageError e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof UnsupportedClassVersionError) {
                throw new IllegalArgumentException(name + " " + version + " needs a newer Java than this one (Java " + Runtime.version().feature()
                        + ")" + javaNeeded(cause.getMessage()));
            }
            throw new IllegalArgumentException(name + " " + version + ": its JDBC driver does not load: " + MavenCentral.rootMessage(e));
        } catch (SQLException e) {
            throw new IllegalArgumentException(name + " " + version + ": its JDBC driver fails: " + MavenCentral.rootMessage(e));
        }
        return null;
    }

    private static URL url(Path jar) {
        try {
            return jar.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final java.util.regex.Pattern CLASS_FILE_VERSION = java.util.regex.Pattern.compile("class file version (\\d+)");

    /** ": it is built for Java N" from the JVM's "... compiled by a more recent version ... (class file version N+44.0) ...". */
    static String javaNeeded(String message) {
        java.util.regex.Matcher m = CLASS_FILE_VERSION.matcher(String.valueOf(message));
        return m.find() ? ": it is built for Java " + (Integer.parseInt(m.group(1)) - 44) : "";
    }
}
