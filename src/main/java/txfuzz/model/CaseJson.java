package txfuzz.model;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** The case file format (docs/formats.md): a TestCase as JSON. */
public final class CaseJson {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private CaseJson() {
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static String write(TestCase c) {
        try {
            return MAPPER.writeValueAsString(c) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a TestCase always serialises", e);
        }
    }

    public static TestCase read(String json, String source) throws CaseFormatException {
        try {
            TestCase c = MAPPER.readValue(json, TestCase.class);
            if (c == null) {
                throw new CaseFormatException(source + ": empty case file", null);
            }
            if (c.formatVersion() != TestCase.FORMAT_VERSION) {
                throw new CaseFormatException(source + ": format version " + c.formatVersion() + " is not supported (this txfuzz reads "
                        + TestCase.FORMAT_VERSION + ")", null);
            }
            return c;
        } catch (ValueInstantiationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new CaseFormatException(source + where(e.getLocation()) + ": " + cause.getMessage(), e);
        } catch (JsonProcessingException e) {
            throw new CaseFormatException(source + where(e.getLocation()) + ": " + e.getOriginalMessage(), e);
        }
    }

    public static TestCase read(Path file) throws CaseFormatException {
        try {
            return read(Files.readString(file), file.toString());
        } catch (NoSuchFileException e) {
            throw new CaseFormatException(file + ": no such file", e);
        } catch (IOException e) {
            throw new CaseFormatException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static String where(JsonLocation loc) {
        return loc == null || loc.getLineNr() < 0 ? "" : ":" + loc.getLineNr() + ":" + loc.getColumnNr();
    }
}
