package txfuzz.dbms;

import java.sql.SQLException;

/** Classification by standard SQLState class, shared by targets before their vendor codes. */
public final class SqlStates {
    private SqlStates() {
    }

    /** The standard meaning of {@code e}'s SQLState, or null when the class says nothing definite. */
    public static ErrorClass byStandardClass(SQLException e) {
        return byStandardClass(e.getSQLState());
    }

    /** The standard meaning of SQLState {@code state}, or null when its class says nothing definite. */
    public static ErrorClass byStandardClass(String state) {
        if (state == null || state.length() < 2) {
            return null;
        }
        String cls = state.substring(0, 2);
        return switch (cls) {
            case "23" -> ErrorClass.CONSTRAINT;
            case "22" -> ErrorClass.DATA;
            case "42" -> ErrorClass.INVALID_STATEMENT;
            case "08" -> ErrorClass.CONNECTION_LOST;
            case "25" -> "25P02".equals(state) ? ErrorClass.IN_FAILED_TRANSACTION : null;
            case "40" -> "40P01".equals(state) ? ErrorClass.DEADLOCK : ErrorClass.SERIALIZATION;
            case "0A" -> ErrorClass.INVALID_STATEMENT;
            default -> null;
        };
    }

    /** The first exception in a chain whose message is not empty, for messages. */
    public static String message(SQLException e) {
        String m = e.getMessage();
        if (m == null) {
            return e.getClass().getSimpleName();
        }
        int echo = m.indexOf("; SQL statement:");
        if (echo >= 0) {
            // H2 echoes the statement on the following lines and ends with its error code: keep the code,
            // not the echo (reports show the statement beside the error; cut to one line, the message
            // used to end in "SQL statement:")
            java.util.regex.Matcher code = ECHOED_ERROR_CODE.matcher(m);
            return m.substring(0, echo) + (code.find() ? " " + code.group(1) : "");
        }
        return m.lines().findFirst().orElse(m);
    }

    private static final java.util.regex.Pattern ECHOED_ERROR_CODE = java.util.regex.Pattern.compile("(\\[[0-9]+-[0-9]+\\])\\s*$");
}
