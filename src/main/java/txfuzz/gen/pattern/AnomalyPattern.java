package txfuzz.gen.pattern;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import txfuzz.model.IsolationLevel;

/**
 * An anomaly pattern (APTrans, Definition 2.1): a sequence of read, write, commit and abort
 * operations of two or three transactions on shared items, each annotated with the item's version.
 * Its order is the schedule a generated case submits; its items are rows the case aims its
 * statements at.
 *
 * @param name         the catalogue name ("lost-update")
 * @param ops          the operations, in schedule order
 * @param proscribedAt the isolation levels that proscribe the pattern as a run can realise it (empty:
 *                     none; such a pattern is a control)
 * @param note         where it comes from and anything a reader should know (one line)
 */
public record AnomalyPattern(String name, List<PatternOp> ops, Set<IsolationLevel> proscribedAt, String note) {
    private static final Pattern NAME = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");
    private static final Pattern OP = Pattern.compile("([RWIDCA])(\\d)(?:\\[(P:)?([a-z]\\d+(?:,[a-z]\\d+)*)\\])?");
    private static final Pattern VERSION = Pattern.compile("([a-z])(\\d+)");

    public AnomalyPattern {
        ops = List.copyOf(ops);
        proscribedAt = proscribedAt.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(proscribedAt));
    }

    /**
     * Reads a pattern: {@code ops} as the catalogue writes it ("R1[x0] W2[x1] C2 W1[x2] C1"),
     * {@code levels} as level codes ("RR SI SER", or "none").
     */
    public static AnomalyPattern parse(String name, String ops, String levels, String note) throws PatternFormatException {
        if (!NAME.matcher(name).matches()) {
            throw new PatternFormatException("pattern name '" + name + "': use lower-case letters, digits and dashes");
        }
        List<PatternOp> parsed = new ArrayList<>();
        for (String token : ops.trim().split("\\s+")) {
            parsed.add(op(name, token));
        }
        AnomalyPattern p = new AnomalyPattern(name, parsed, levels(name, levels), note == null ? "" : note.trim());
        p.validate();
        return p;
    }

    private static PatternOp op(String name, String token) throws PatternFormatException {
        Matcher m = OP.matcher(token);
        if (!m.matches()) {
            throw new PatternFormatException(name + ": '" + token + "' is not an operation (R1[x0], W2[x1], I1[y1], D2[x2], R1[P:x0,y1], C1, A2)");
        }
        char letter = m.group(1).charAt(0);
        int txn = Integer.parseInt(m.group(2));
        boolean predicate = m.group(3) != null;
        String body = m.group(4);
        boolean ends = letter == 'C' || letter == 'A';
        if (ends != (body == null)) {
            throw new PatternFormatException(name + ": '" + token + "': " + (ends ? "a commit or abort names no item" : "a read or write names its item and version"));
        }
        if (predicate && letter != 'R') {
            throw new PatternFormatException(name + ": '" + token + "': only a read can be by predicate (R1[P:x0])");
        }
        List<PatternOp.Version> versions = new ArrayList<>();
        if (body != null) {
            for (String v : body.split(",")) {
                Matcher vm = VERSION.matcher(v);
                if (!vm.matches()) {
                    throw new PatternFormatException(name + ": '" + token + "': '" + v + "' is not an item and version (x0)");
                }
                versions.add(new PatternOp.Version(vm.group(1), Integer.parseInt(vm.group(2))));
            }
        }
        if (!predicate && versions.size() > 1) {
            throw new PatternFormatException(name + ": '" + token + "': one item per operation, except a predicate read");
        }
        PatternOp.Type type = switch (letter) {
            case 'R' -> predicate ? PatternOp.Type.PREDICATE_READ : PatternOp.Type.READ;
            case 'W' -> PatternOp.Type.WRITE;
            case 'I' -> PatternOp.Type.INSERT;
            case 'D' -> PatternOp.Type.DELETE;
            case 'C' -> PatternOp.Type.COMMIT;
            default -> PatternOp.Type.ABORT;
        };
        return new PatternOp(type, txn, versions);
    }

    private static Set<IsolationLevel> levels(String name, String text) throws PatternFormatException {
        Set<IsolationLevel> out = EnumSet.noneOf(IsolationLevel.class);
        if (text.trim().equalsIgnoreCase("none")) {
            return out;
        }
        for (String code : text.trim().split("\\s+")) {
            IsolationLevel l = null;
            for (IsolationLevel c : IsolationLevel.values()) {
                if (c.shortName().equalsIgnoreCase(code)) {
                    l = c;
                }
            }
            if (l == null) {
                throw new PatternFormatException(name + ": '" + code + "' is not an isolation level (RU RC RR SI SER, or none)");
            }
            out.add(l);
        }
        return out;
    }

    /** Checks that the operations describe a run that can happen; the message says what does not. */
    private void validate() throws PatternFormatException {
        Set<Integer> ids = transactions();
        if (ids.size() < 2) {
            throw new PatternFormatException(name + ": a pattern needs two transactions or more");
        }
        int expect = 1;
        for (int id : ids) {
            if (id != expect++) {
                throw new PatternFormatException(name + ": transactions are numbered 1, 2, 3 …; T" + id + " breaks the sequence");
            }
        }
        Set<Integer> ended = new TreeSet<>();
        Map<String, Integer> installed = new LinkedHashMap<>();
        Set<String> inserted = new TreeSet<>();
        Set<String> deleted = new TreeSet<>();
        boolean writes = false;
        for (PatternOp op : ops) {
            if (ended.contains(op.txn())) {
                throw new PatternFormatException(name + ": " + op + " comes after T" + op.txn() + " ended");
            }
            if (op.type().ends()) {
                ended.add(op.txn());
                continue;
            }
            for (PatternOp.Version v : op.reads()) {
                int have = installed.getOrDefault(v.item(), 0);
                if (op.type().writes()) {
                    writes = true;
                    if (v.version() != have + 1) {
                        throw new PatternFormatException(name + ": " + op + " should install " + v.item() + (have + 1)
                                + " (versions count the writes of an item in pattern order)");
                    }
                    if (deleted.contains(v.item())) {
                        throw new PatternFormatException(name + ": " + op + " writes " + v.item() + " after it was deleted");
                    }
                    if (op.type() == PatternOp.Type.INSERT && have > 0) {
                        throw new PatternFormatException(name + ": " + op + ": only an item's first write can insert it");
                    }
                    if (op.type() == PatternOp.Type.INSERT) {
                        inserted.add(v.item());
                    }
                    if (op.type() == PatternOp.Type.DELETE) {
                        deleted.add(v.item());
                    }
                    installed.put(v.item(), v.version());
                } else if (v.version() > have) {
                    throw new PatternFormatException(name + ": " + op + " reads " + v + " before it is written");
                }
            }
        }
        for (int id : ids) {
            if (!ended.contains(id)) {
                throw new PatternFormatException(name + ": T" + id + " neither commits (C" + id + ") nor aborts (A" + id + ")");
            }
        }
        if (!writes) {
            throw new PatternFormatException(name + ": a pattern needs a write");
        }
        // a key read of a row that is not there (yet, or any more) reads nothing: only a predicate can see its absence
        for (PatternOp op : ops) {
            if (op.type() == PatternOp.Type.READ && !present(op.single())) {
                throw new PatternFormatException(name + ": " + op + " reads a row that is not there; read it by predicate (R1[P:" + op.single() + "])");
            }
        }
    }

    /** The transactions, 1..n. */
    public Set<Integer> transactions() {
        return ops.stream().map(PatternOp::txn).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The items, in order of first appearance. */
    public List<String> items() {
        List<String> out = new ArrayList<>();
        for (PatternOp op : ops) {
            for (PatternOp.Version v : op.reads()) {
                if (!out.contains(v.item())) {
                    out.add(v.item());
                }
            }
        }
        return out;
    }

    /** Items the pattern inserts: they are not in the initial data. */
    public Set<String> insertedItems() {
        return ops.stream().filter(o -> o.type() == PatternOp.Type.INSERT).map(o -> o.single().item()).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Whether the row of version {@code v} exists: not before an insert, not as a deletion. */
    public boolean present(PatternOp.Version v) {
        if (v.version() == 0) {
            return !insertedItems().contains(v.item());
        }
        return ops.stream().noneMatch(o -> o.type() == PatternOp.Type.DELETE && o.single().equals(v));
    }

    /** The transaction of each operation, in order: the submitted order of a case that performs it. */
    public List<Integer> schedule() {
        return ops.stream().map(PatternOp::txn).toList();
    }

    /** Transaction {@code txn}'s operations, in order. */
    public List<PatternOp> opsOf(int txn) {
        return ops.stream().filter(o -> o.txn() == txn).toList();
    }

    /** Whether {@code txn} commits (else it aborts). */
    public boolean commits(int txn) {
        return opsOf(txn).stream().anyMatch(o -> o.type() == PatternOp.Type.COMMIT);
    }

    /** Whether any level up to {@code level}'s strength proscribes it: the campaign's rotation asks this. */
    public boolean proscribedAt(IsolationLevel level) {
        return proscribedAt.contains(level);
    }

    /** The levels that proscribe it as the catalogue writes them ("RR SI SER"); empty for a control. */
    public String levelCodes() {
        return String.join(" ", proscribedAt.stream().map(IsolationLevel::shortName).toList());
    }

    /** The operations as the catalogue writes them. */
    public String text() {
        return ops.stream().map(PatternOp::toString).collect(Collectors.joining(" "));
    }

    @Override
    public String toString() {
        return name + " " + text();
    }
}
