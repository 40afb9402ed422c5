package txfuzz.campaign;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import txfuzz.oracle.Classification;
import txfuzz.report.FindingRecord;

/**
 * junit.xml ({@code run --report junit}): a summary.json as JUnit XML, the test-report format CI
 * systems (Jenkins, GitLab, GitHub Actions' reporters) display. One {@code <testcase>} per unique
 * finding, named by its oracle, kind and signature id — the same problem gets the same name in every
 * run, so a CI system's history tracks it across nightly campaigns even though the finding ids
 * (seed, iteration) differ.
 *
 * <ul>
 *   <li>a bug candidate is a {@code <failure>}: it is what someone must look at, and the build goes red,
 *       as {@code txfuzz run} exits 1;</li>
 *   <li>documented behaviour, a flaky finding and an instrumentation effect are {@code <skipped>}, with
 *       the classification in the message: the case ran, but nothing in the engine needs fixing. CI
 *       systems list skipped tests by name, apart from the passing ones and without failing the build;
 *       a pass would bury them among passes, a failure would fail a build on behaviour the engine
 *       documents;</li>
 *   <li>with no finding at all, one passing testcase, {@code campaign}, stands for the run: a report
 *       with no testcase reads as "no tests ran" to some CI systems.</li>
 * </ul>
 */
final class JunitXml {
    private JunitXml() {
    }

    /** Writes {@code summary} to {@code file} whole or not at all (a temporary file renamed into place). */
    static void write(Summary summary, Path file) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, render(summary));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    static String render(Summary s) {
        Document doc;
        try {
            doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().newDocument();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
        long failures = s.signatures().stream().filter(g -> bug(g)).count();
        long skipped = s.signatures().size() - failures;
        long tests = Math.max(s.signatures().size(), 1);
        String time = String.valueOf(s.seconds());

        Element suites = doc.createElement("testsuites");
        doc.appendChild(suites);
        attrs(suites, "name", "txfuzz", "tests", tests, "failures", failures, "errors", 0, "skipped", skipped, "time", time);
        Element suite = child(suites, "testsuite");
        attrs(suite, "name", "txfuzz run " + s.dbms() + " seed " + s.seed(), "tests", tests, "failures", failures, "errors", 0,
                "skipped", skipped, "time", time);
        if (s.meta() != null) {
            // JUnit's timestamp has no zone: the UTC time, as meta.startedAt is
            suite.setAttribute("timestamp", LocalDateTime.ofInstant(java.time.Instant.parse(s.meta().startedAt()), ZoneOffset.UTC).toString());
        }
        Element props = child(suite, "properties");
        property(props, "dbms", s.dbms());
        property(props, "version", s.version());
        property(props, "seed", s.seed());
        property(props, "isolation", String.join(",", s.isolation()));
        property(props, "oracles", String.join(",", s.oracles()));
        property(props, "cases", s.cases());
        property(props, "bugCandidates", s.bugCandidates());
        property(props, "uniqueFindings", s.uniqueFindings());
        property(props, "duplicates", s.duplicates());
        if (s.meta() != null) {
            property(props, "txfuzzVersion", s.meta().txfuzzVersion());
            property(props, "gitCommit", s.meta().gitCommit());
            property(props, "commandLine", s.meta().commandLine() == null ? null : String.join(" ", s.meta().commandLine()));
            property(props, "engineArtifact", s.meta().engine().artifact());
            property(props, "engineMavenVersion", s.meta().engine().mavenVersion());
        }
        for (Summary.Group g : s.signatures()) {
            Optional<FindingRecord> primary = s.findings().stream().filter(f -> f.primary() && f.id().equals(g.finding())).findFirst();
            String oracleKind = primary.map(f -> f.oracle() + "/" + f.kind()).orElse("finding");
            Element tc = child(suite, "testcase");
            attrs(tc, "classname", "txfuzz." + s.dbms() + "." + primary.map(FindingRecord::isolation).orElse("any"),
                    "name", oracleKind + " " + (g.signature() == null ? g.finding() : g.signature()), "time", 0);
            String message = g.classification() + ": " + g.description() + " (" + g.finding() + ")";
            String details = details(g, primary, oracleKind);
            if (bug(g)) {
                Element failure = child(tc, "failure");
                attrs(failure, "message", message, "type", oracleKind);
                failure.setTextContent(text(details));
            } else {
                attrs(child(tc, "skipped"), "message", message);
                child(tc, "system-out").setTextContent(text(details));
            }
        }
        if (s.signatures().isEmpty()) {
            Element tc = child(suite, "testcase");
            attrs(tc, "classname", "txfuzz." + s.dbms(), "name", "campaign", "time", time);
            child(tc, "system-out").setTextContent(text(s.cases() + " cases at " + String.join(", ", s.isolation()) + " judged by "
                    + String.join(", ", s.oracles()) + " on " + s.version() + ": no finding.\n"));
        }
        try {
            var t = TransformerFactory.newInstance().newTransformer();
            // the declaration written here, not by the JDK's serializer: it says standalone="no", or runs the root element onto its line
            t.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            t.setOutputProperty(OutputKeys.INDENT, "yes");
            t.setOutputProperty("{http://xml.apache.org/xslt}indent-amount", "2");
            StringWriter out = new StringWriter();
            t.transform(new DOMSource(doc), new StreamResult(out));
            return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + out.toString().strip() + "\n";
        } catch (TransformerException e) {
            throw new IllegalStateException("cannot render junit.xml", e);
        }
    }

    private static boolean bug(Summary.Group g) {
        return Classification.BUG_CANDIDATE.label().equals(g.classification());
    }

    private static String details(Summary.Group g, Optional<FindingRecord> primary, String oracleKind) {
        StringBuilder b = new StringBuilder();
        b.append(oracleKind).append(", ").append(g.classification()).append('\n');
        b.append("finding: ").append(g.finding()).append(primary.map(f -> " (" + f.dir() + "/README.md)").orElse("")).append('\n');
        b.append("signature: ").append(g.signature()).append(" — ").append(g.text()).append('\n');
        b.append("duplicates: ").append(g.duplicates()).append(g.duplicateIds().isEmpty() ? "" : " (" + String.join(", ", g.duplicateIds()) + ")")
                .append('\n');
        primary.ifPresent(f -> {
            b.append("replay: txfuzz replay ").append(f.dir()).append("/case.json (paths are in the run's output folder)\n");
            b.append('\n').append(f.summary()).append('\n');
        });
        return b.toString();
    }

    private static Element child(Element parent, String name) {
        Element e = parent.getOwnerDocument().createElement(name);
        parent.appendChild(e);
        return e;
    }

    private static void attrs(Element e, Object... namesAndValues) {
        for (int i = 0; i < namesAndValues.length; i += 2) {
            e.setAttribute((String) namesAndValues[i], text(String.valueOf(namesAndValues[i + 1])));
        }
    }

    private static void property(Element props, String name, Object value) {
        if (value != null) {
            attrs(child(props, "property"), "name", name, "value", value);
        }
    }

    /**
     * {@code s} with every character XML 1.0 cannot hold replaced (control characters from an engine's
     * error message, an unpaired surrogate): the DOM would write them as character references, which
     * no XML 1.0 parser accepts. Markup characters need nothing here: the serializer escapes them.
     */
    static String text(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            boolean allowed = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD)
                    || (cp >= 0x10000 && cp <= 0x10FFFF);
            if (allowed) {
                b.appendCodePoint(cp);
            } else {
                b.append(String.format("\\u%04x", cp));
            }
            i += Character.charCount(cp);
        }
        return b.toString();
    }
}
