package txfuzz.imports;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A PostgreSQL isolation-tester spec, parsed by the grammar of src/test/isolation/specparse.y and
 * specscanner.l: setup blocks, an optional teardown, sessions (each with an optional setup, its steps and an
 * optional teardown) and permutations. A permutation step may carry blocker annotations ({@code s1a(s2b)},
 * {@code s1a(*)}, {@code s1a(s2b notices 1)}), which only tell the tester when to report a wait; txfuzz asks the
 * engine who waits, so they are read and set aside.
 */
record IsolationSpec(List<String> setup, String teardown, List<Session> sessions, List<List<String>> permutations) {
    record Session(String name, String setup, Map<String, String> steps) {
    }

    /** Every permutation to run: those listed, else every interleaving of the sessions' steps (the tester's rule). */
    List<List<String>> schedules(int limit) {
        if (!permutations.isEmpty()) {
            return permutations;
        }
        List<List<String>> perSession = sessions.stream().map(s -> List.copyOf(s.steps().keySet())).toList();
        List<List<String>> out = new ArrayList<>();
        interleave(perSession, new int[perSession.size()], new ArrayList<>(), out, limit);
        return out;
    }

    /** How many permutations {@link #schedules} gives without a limit. */
    long scheduleCount() {
        if (!permutations.isEmpty()) {
            return permutations.size();
        }
        long total = 0;
        long count = 1;
        for (Session s : sessions) { // multinomial: (n1+...+nk)! / (n1! ... nk!)
            for (int i = 1; i <= s.steps().size(); i++) {
                total++;
                count = count * total / i;
            }
        }
        return count;
    }

    private static void interleave(List<List<String>> perSession, int[] next, List<String> prefix, List<List<String>> out, int limit) {
        if (out.size() >= limit) {
            return;
        }
        boolean any = false;
        for (int s = 0; s < perSession.size(); s++) {
            if (next[s] < perSession.get(s).size()) {
                any = true;
                prefix.add(perSession.get(s).get(next[s]++));
                interleave(perSession, next, prefix, out, limit);
                next[s]--;
                prefix.remove(prefix.size() - 1);
            }
        }
        if (!any) {
            out.add(List.copyOf(prefix));
        }
    }

    /** The session a step belongs to, or null. */
    Session sessionOf(String step) {
        return sessions.stream().filter(s -> s.steps().containsKey(step)).findFirst().orElse(null);
    }

    static IsolationSpec parse(String text) throws Unexpressible {
        return new Parser(text).spec();
    }

    private static final class Parser {
        private final String text;
        private int pos;
        private int line = 1;

        Parser(String text) {
            this.text = text;
        }

        IsolationSpec spec() throws Unexpressible {
            List<String> setup = new ArrayList<>();
            String teardown = null;
            List<Session> sessions = new ArrayList<>();
            List<List<String>> permutations = new ArrayList<>();
            while (peekWord("setup")) {
                word();
                setup.add(block());
            }
            if (peekWord("teardown")) {
                word();
                teardown = block();
            }
            while (peekWord("session")) {
                word();
                String name = identifier();
                String sessionSetup = null;
                if (peekWord("setup")) {
                    word();
                    sessionSetup = block();
                }
                Map<String, String> steps = new LinkedHashMap<>();
                while (peekWord("step")) {
                    word();
                    String step = identifier();
                    if (steps.put(step, block()) != null) {
                        throw error("step \"" + step + "\" is defined twice");
                    }
                }
                if (steps.isEmpty()) {
                    throw error("session \"" + name + "\" has no steps");
                }
                if (peekWord("teardown")) {
                    word();
                    block(); // a session's teardown runs after the permutation; the fresh database per case makes it moot
                }
                sessions.add(new Session(name, sessionSetup, steps));
            }
            if (sessions.isEmpty()) {
                throw error("no session");
            }
            while (peekWord("permutation")) {
                word();
                List<String> p = new ArrayList<>();
                while (peekIdentifier() && !peekWord("permutation")) {
                    p.add(identifier());
                    if (peekChar('(')) {
                        blockers();
                    }
                }
                if (p.isEmpty()) {
                    throw error("empty permutation");
                }
                permutations.add(p);
            }
            skipSpace();
            if (pos < text.length()) {
                throw error("unexpected \"" + text.charAt(pos) + "\"");
            }
            IsolationSpec spec = new IsolationSpec(setup, teardown, sessions, permutations);
            for (List<String> p : permutations) {
                for (String step : p) {
                    if (spec.sessionOf(step) == null) {
                        throw new Unexpressible("a permutation names step \"" + step + "\", which no session defines");
                    }
                }
            }
            return spec;
        }

        private void blockers() throws Unexpressible {
            pos++; // (
            while (true) {
                skipSpace();
                if (peekChar('*')) {
                    pos++;
                } else {
                    identifier();
                    if (peekWord("notices")) {
                        word();
                        skipSpace();
                        while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
                            pos++;
                        }
                    }
                }
                skipSpace();
                if (peekChar(',')) {
                    pos++;
                } else if (peekChar(')')) {
                    pos++;
                    return;
                } else {
                    throw error("a blocker annotation is not closed");
                }
            }
        }

        private void skipSpace() {
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (c == '\n') {
                    line++;
                    pos++;
                } else if (Character.isWhitespace(c)) {
                    pos++;
                } else if (c == '#') {
                    while (pos < text.length() && text.charAt(pos) != '\n') {
                        pos++;
                    }
                } else {
                    return;
                }
            }
        }

        private boolean peekChar(char c) {
            skipSpace();
            return pos < text.length() && text.charAt(pos) == c;
        }

        private boolean peekWord(String w) {
            skipSpace();
            if (!text.regionMatches(pos, w, 0, w.length())) {
                return false;
            }
            int end = pos + w.length();
            return end >= text.length() || !isIdentChar(text.charAt(end));
        }

        private boolean peekIdentifier() {
            skipSpace();
            return pos < text.length() && (text.charAt(pos) == '"' || Character.isLetter(text.charAt(pos)) || text.charAt(pos) == '_');
        }

        private static boolean isIdentChar(char c) {
            return Character.isLetterOrDigit(c) || c == '_';
        }

        private String word() {
            skipSpace();
            int start = pos;
            while (pos < text.length() && isIdentChar(text.charAt(pos))) {
                pos++;
            }
            return text.substring(start, pos);
        }

        private String identifier() throws Unexpressible {
            skipSpace();
            if (peekChar('"')) {
                int end = text.indexOf('"', pos + 1);
                int nl = text.indexOf('\n', pos + 1);
                if (end < 0 || (nl >= 0 && nl < end)) {
                    throw error("unterminated quoted string");
                }
                String s = text.substring(pos + 1, end);
                pos = end + 1;
                return s;
            }
            if (!peekIdentifier()) {
                throw error("expected a name");
            }
            return word();
        }

        /** An SQL block: from "{" to the first "}" (the scanner's rule), whitespace trimmed. */
        private String block() throws Unexpressible {
            if (!peekChar('{')) {
                throw error("expected an SQL block { … }");
            }
            int end = text.indexOf('}', pos);
            if (end < 0) {
                throw error("unterminated SQL block");
            }
            String body = text.substring(pos + 1, end);
            line += (int) body.chars().filter(c -> c == '\n').count();
            pos = end + 1;
            return body.strip();
        }

        private Unexpressible error(String what) {
            return new Unexpressible("not an isolation-tester spec: " + what + " at line " + line);
        }
    }
}
