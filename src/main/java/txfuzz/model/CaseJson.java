package txfuzz.model;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
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
        } catch (UnrecognizedPropertyException e) {
            throw new CaseFormatException(source + where(e.getLocation()) + ": unknown field '" + field(e) + "'", e);
        } catch (MismatchedInputException e) {
            // Jackson's own words name its classes and settings: say which field is wrong and what it must be
            String field = field(e);
            boolean missing = e.getMessage() != null && (e.getMessage().startsWith("Cannot map `null`")
                    || e.getMessage().startsWith("Missing required creator property"));
            throw new CaseFormatException(source + where(e.getLocation()) + ": " + (field.isEmpty() ? "the case" : "field '" + field + "'")
                    + (missing ? " is missing; it must be " : " must be ") + expected(e.getTargetType()), e);
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

    /** The field's path in the case, e.g. {@code transactions[0].statements[2].sql}. */
    private static String field(JsonMappingException e) {
        StringBuilder out = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                out.append(out.length() == 0 ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                out.append('[').append(r.getIndex()).append(']');
            }
        }
        return out.toString();
    }

    /** What a value of {@code type} is, in the words of docs/formats.md rather than Java's. */
    private static String expected(Class<?> type) {
        if (type == null) {
            return "another kind of value (see docs/formats.md)";
        }
        if (type == int.class || type == long.class || type == Integer.class || type == Long.class || type == short.class) {
            return "a whole number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        if (type.isEnum()) {
            return "one of " + String.join(", ", java.util.Arrays.stream(type.getEnumConstants()).map(Object::toString).toList());
        }
        if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "a list";
        }
        if (java.util.Map.class.isAssignableFrom(type)) {
            return "an object";
        }
        return "an object (" + type.getSimpleName() + ", see docs/formats.md)";
    }

    private static String where(JsonLocation loc) {
        return loc == null || loc.getLineNr() < 0 ? "" : ":" + loc.getLineNr() + ":" + loc.getColumnNr();
    }
}
