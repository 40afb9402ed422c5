package txfuzz.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The command line as summary.json records it: {@code txfuzz}, then the arguments as given, with any
 * secret a JDBC URL may carry masked. txfuzz takes passwords only from the environment, but a user
 * may still write one into {@code --url} ({@code ?password=…}, {@code //user:secret@host}), and the
 * summary is shared: attached to CI runs, pasted into bug reports.
 */
final class RecordedCommandLine {
    /** A key=value parameter whose value is a secret, in a URL's query or properties part. */
    private static final Pattern SECRET_PARAMETER = Pattern.compile("(?i)\\b([a-z]*(?:password|passwd|pwd|secret|token)[a-z]*)=([^&;,\\s]*)");
    /** The password of a URL's user information: {@code //user:password@host}. */
    private static final Pattern USER_INFO = Pattern.compile("//([^/@:\\s]*):([^/@\\s]*)@");

    private RecordedCommandLine() {
    }

    static List<String> of(List<String> args) {
        List<String> out = new ArrayList<>(args.size() + 1);
        out.add("txfuzz");
        for (String a : args) {
            out.add(masked(a));
        }
        return List.copyOf(out);
    }

    static String masked(String arg) {
        String s = SECRET_PARAMETER.matcher(arg).replaceAll("$1=***");
        return USER_INFO.matcher(s).replaceAll("//$1:***@");
    }
}
