package txfuzz.dbms.versions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The mirror of Maven Central that the user's Maven uses ({@code ~/.m2/settings.xml}: a
 * {@code <mirror>} whose {@code <mirrorOf>} names {@code central} or {@code *}), so that txfuzz's
 * own downloads go where the build's do on a machine that cannot reach Maven Central directly.
 * Mirrors that need credentials are not supported (their {@code <server>} passwords are not read).
 */
final class MavenSettings {
    private MavenSettings() {
    }

    /**
     * A mirror: its id matters too, since Maven's local repository records which repository (by id) each
     * artifact came from, and accepts a local copy only for a request to that repository.
     */
    record Mirror(String id, String url) {
    }

    /** The mirror's URL, or empty when there is no settings file, no such mirror, or the file cannot be read. */
    static Optional<String> centralMirror(Path settings) {
        return mirrorOfCentral(settings).map(Mirror::url);
    }

    /** The mirror (its id "central" when it has none), or empty when there is no settings file, no such mirror, or the file cannot be read. */
    static Optional<Mirror> mirrorOfCentral(Path settings) {
        if (!Files.isRegularFile(settings)) {
            return Optional.empty();
        }
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true); // a settings file needs no DTD
            f.setExpandEntityReferences(false);
            Document d = f.newDocumentBuilder().parse(settings.toFile());
            NodeList mirrors = d.getElementsByTagName("mirror");
            for (int i = 0; i < mirrors.getLength(); i++) {
                Element m = (Element) mirrors.item(i);
                String of = text(m, "mirrorOf");
                String url = text(m, "url");
                boolean mirrorsCentral = Arrays.stream(of.split(",")).map(String::strip)
                        .anyMatch(x -> x.equals("central") || x.equals("*") || x.equals("external:*"));
                if (mirrorsCentral && !url.isBlank()) {
                    String id = text(m, "id").strip();
                    return Optional.of(new Mirror(id.isEmpty() ? "central" : id, url.strip()));
                }
            }
        } catch (Exception unreadable) {
            // Maven itself would complain; txfuzz falls back to Maven Central and says why if that fails
        }
        return Optional.empty();
    }

    private static String text(Element parent, String tag) {
        NodeList n = parent.getElementsByTagName(tag);
        return n.getLength() == 0 ? "" : n.item(0).getTextContent();
    }
}
