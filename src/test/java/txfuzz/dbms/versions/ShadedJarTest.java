package txfuzz.dbms.versions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Jdbc;
import txfuzz.dbms.Targets;

/**
 * The runnable jar leaves out the servers' binaries, and may leave out an in-process engine, since txfuzz
 * resolves their default versions from the local Maven repository at run time like any other version
 * (the jar is rebuilt after every change: 240 MB of binaries and native libraries in it made every
 * rebuild slow). Checked here in the build's shade configuration; {@link ShadedJarIT} checks the jar
 * that {@code mvn verify} builds from it.
 */
class ShadedJarTest {
    private static final Path POM = Path.of("pom.xml");

    @Test
    void theShadedJarLeavesOutTheServersBinariesAndOnlyEnginesItCanResolve() throws Exception {
        Set<String> excluded = new HashSet<>(shadeExcludes());
        for (Engine e : Targets.engines()) {
            MavenArtifact artifact = e.artifact().orElse(null);
            if (artifact == null) {
                continue;
            }
            boolean left = excluded.remove(artifact.toString());
            if (e.server()) {
                assertTrue(left, e.name() + "'s binaries (" + artifact + ") are not in the shade excludes");
            } else if (left) {
                // without the class path's copy, the default version's driver is resolved as another version's would be
                String version = BundledVersions.of(e.name());
                Jdbc jdbc = EngineDrivers.defaultDriver(ClassLoader.getPlatformClassLoader(), e.name(), artifact, version,
                        "jdbc:" + e.name() + ":"); // each in-process engine's URL prefix is its name
                assertEquals(version, jdbc.version());
                assertTrue(jdbc.driver().getClass().getClassLoader() != ClassLoader.getPlatformClassLoader(), e.name());
            }
        }
        assertEquals(Set.of(), excluded, "excluded from the jar but no engine's artifact");
    }

    /** groupId:artifactId of every artifact the shade plugin's artifactSet excludes in pom.xml. */
    static Set<String> shadeExcludes() throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document pom = f.newDocumentBuilder().parse(POM.toFile());
        Set<String> excluded = new HashSet<>();
        NodeList plugins = pom.getElementsByTagName("plugin");
        boolean shadeFound = false;
        for (int i = 0; i < plugins.getLength(); i++) {
            Element plugin = (Element) plugins.item(i);
            if (!"maven-shade-plugin".equals(plugin.getElementsByTagName("artifactId").item(0).getTextContent().strip())) {
                continue;
            }
            shadeFound = true;
            NodeList sets = plugin.getElementsByTagName("artifactSet");
            for (int s = 0; s < sets.getLength(); s++) {
                NodeList excludes = ((Element) sets.item(s)).getElementsByTagName("exclude");
                for (int x = 0; x < excludes.getLength(); x++) {
                    excluded.add(excludes.item(x).getTextContent().strip());
                }
            }
        }
        assertTrue(shadeFound, "pom.xml shades the runnable jar");
        return excluded;
    }
}
