package txfuzz.gen;

import java.util.ArrayList;
import java.util.List;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;

/** Tables t0, t1 ... with columns c0, c1 ..., their constraints and indexes, and the initial rows. */
final class SchemaGenerator {
    private final Rng rng;
    private final Dialect dialect;
    private final GenConfig config;
    private final ValuePool pool;
    private final List<ColType> types = new ArrayList<>();
    private int nextIndex;
    /** The next initial row's rid: unique across the case's tables. */
    private int nextRid = 1;

    SchemaGenerator(Rng rng, Dialect dialect, GenConfig config, ValuePool pool) {
        this.rng = rng;
        this.dialect = dialect;
        this.config = config;
        this.pool = pool;
        if (dialect.has(Feature.TYPE_INT)) {
            types.add(ColType.INT);
        }
        if (dialect.has(Feature.TYPE_DOUBLE)) {
            types.add(ColType.DOUBLE);
        }
        if (dialect.has(Feature.TYPE_VARCHAR)) {
            types.add(ColType.VARCHAR);
        }
        if (types.isEmpty()) {
            types.add(ColType.INT); // a table needs a column; INT is the type every engine has
        }
    }

    /** Builds the schema and appends its DDL and initial INSERTs to {@code setup}. */
    Schema generate(List<String> setup) {
        Schema schema = new Schema();
        int tableCount = config.maxTables() == 1 ? 1 : (rng.chance(0.85) ? rng.between(2, config.maxTables()) : 1);
        for (int i = 0; i < tableCount; i++) {
            Schema.Table t = table(schema, "t" + i);
            schema.tables.add(t);
            setup.add(createTable(t));
            setup.addAll(indexes(t));
        }
        for (Schema.Table t : schema.tables) {
            setup.addAll(rows(t));
        }
        return schema;
    }

    private ColType randomType() {
        while (true) {
            ColType t = switch (rng.weighted(5, 2, 3)) {
                case 0 -> ColType.INT;
                case 1 -> ColType.DOUBLE;
                default -> ColType.VARCHAR;
            };
            if (types.contains(t)) {
                return t;
            }
        }
    }

    private Schema.Table table(Schema schema, String name) {
        Schema.Table t = new Schema.Table(name);
        int columns = rng.between(Math.min(2, config.maxColumns()), config.maxColumns());
        for (int i = 0; i < columns; i++) {
            // the first column leans to INT so most tables get an integer key to collide on
            ColType type = i == 0 && types.contains(ColType.INT) && rng.chance(0.7) ? ColType.INT : randomType();
            t.columns.add(new Schema.Column(t, "c" + i, type));
        }
        if (dialect.has(Feature.PRIMARY_KEY) && rng.chance(0.75)) {
            List<Schema.Column> keyable = new ArrayList<>();
            for (Schema.Column c : t.columns) {
                if (c.type != ColType.DOUBLE) {
                    keyable.add(c);
                }
            }
            if (!keyable.isEmpty()) {
                Schema.Column first = keyable.get(0).index() == 0 || rng.chance(0.3) ? keyable.get(0) : rng.pick(keyable);
                t.primaryKey.add(first);
                if (keyable.size() > 1 && rng.chance(0.2)) {
                    Schema.Column second = rng.pick(keyable);
                    if (second != first) {
                        t.primaryKey.add(second);
                        t.primaryKey.sort((a, b) -> Integer.compare(a.index(), b.index()));
                    }
                }
                for (Schema.Column c : t.primaryKey) {
                    c.notNull = true;
                }
                if (t.primaryKey.size() == 1) {
                    first.unique = true;
                    first.uniqueConstraint = true;
                }
                t.uniqueKeys.add(List.copyOf(t.primaryKey));
            }
        }
        for (Schema.Column c : t.columns) {
            if (t.primaryKey.contains(c)) {
                continue;
            }
            if (dialect.has(Feature.UNIQUE) && rng.chance(0.2)) {
                c.unique = true;
                c.uniqueConstraint = true;
                t.uniqueKeys.add(List.of(c));
            }
            if (dialect.has(Feature.NOT_NULL) && rng.chance(0.25)) {
                c.notNull = true;
            }
            if (dialect.has(Feature.CHECK) && rng.chance(0.2)) {
                c.check = check(c.type);
            }
            if (dialect.has(Feature.DEFAULT) && !c.unique && rng.chance(0.25)) {
                Object v = pool.fresh(c.type);
                // no negative defaults: Derby cannot parse "DEFAULT -1 CHECK (...)"
                if (c.accepts(v) && !(v instanceof Number n && n.doubleValue() < 0)) {
                    c.defaultValue = v;
                }
            }
        }
        if (dialect.has(Feature.FOREIGN_KEY) && !schema.tables.isEmpty() && rng.chance(0.4)) {
            // a single-column PRIMARY KEY or UNIQUE constraint of an earlier table; every engine
            // refuses a reference to a column with only a unique index (SQLite aside)
            List<Schema.Column> keys = new ArrayList<>();
            for (Schema.Table p : schema.tables) {
                for (Schema.Column c : p.columns) {
                    if (c.uniqueConstraint && c.type != ColType.DOUBLE) {
                        keys.add(c);
                    }
                }
            }
            if (!keys.isEmpty()) {
                Schema.Column key = rng.pick(keys);
                List<Schema.Column> candidates = new ArrayList<>();
                for (Schema.Column c : t.columns) {
                    if (c.type == key.type && !t.primaryKey.contains(c) && c.check == null) {
                        candidates.add(c);
                    }
                }
                if (!candidates.isEmpty()) {
                    rng.pick(candidates).references = key;
                }
            }
        }
        return t;
    }

    private Schema.Check check(ColType type) {
        if (type == ColType.VARCHAR) {
            return switch (rng.nextInt(3)) {
                case 0 -> new Schema.Check("<>", "e");
                case 1 -> new Schema.Check(">=", "b");
                default -> new Schema.Check("<", "e");
            };
        }
        int k = rng.nextInt(4);
        Object v = switch (k) {
            case 0 -> 0;
            case 1 -> -1;
            case 2 -> 10;
            default -> rng.between(0, 9);
        };
        if (type == ColType.DOUBLE) {
            v = ((Integer) v).doubleValue();
        }
        return switch (k) {
            case 0 -> new Schema.Check(">=", v);
            case 1 -> new Schema.Check(">", v);
            case 2 -> new Schema.Check("<", v);
            default -> new Schema.Check("<>", v);
        };
    }

    private String typeName(ColType type) {
        return switch (type) {
            case INT -> "INT";
            case DOUBLE -> dialect.doubleType();
            case VARCHAR -> dialect.varcharType();
        };
    }

    private String createTable(Schema.Table t) {
        List<String> parts = new ArrayList<>();
        for (Schema.Column c : t.columns) {
            StringBuilder sb = new StringBuilder(c.name).append(' ').append(typeName(c.type));
            if (c.defaultValue != null) {
                sb.append(" DEFAULT ").append(plain(c.defaultValue));
            }
            if (c.notNull && dialect.has(Feature.NOT_NULL)) {
                sb.append(" NOT NULL");
            }
            if (c.check != null) {
                sb.append(" CHECK (").append(c.name).append(' ').append(c.check.op()).append(' ')
                        .append(plain(c.check.value())).append(')');
            }
            parts.add(sb.toString());
        }
        if (config.instrumented()) {
            // row tracking: never in a key, an index, a CHECK or an FK; last, so a state dump ends with them
            parts.add(Instrumentation.RID + " " + Instrumentation.TYPE);
            parts.add(Instrumentation.WL + " " + Instrumentation.TYPE);
        }
        if (!t.primaryKey.isEmpty()) {
            parts.add("PRIMARY KEY (" + names(t.primaryKey) + ")");
        }
        for (Schema.Column c : t.columns) {
            if (c.uniqueConstraint && !t.primaryKey.contains(c)) {
                parts.add("UNIQUE (" + c.name + ")");
            }
        }
        for (Schema.Column c : t.columns) {
            if (c.references != null) {
                parts.add("FOREIGN KEY (" + c.name + ") REFERENCES " + c.references.table.name + " (" + c.references.name + ")");
            }
        }
        return "CREATE TABLE " + t.name + " (" + String.join(", ", parts) + ")";
    }

    /** A literal without parentheses: DEFAULT and CHECK want a plain constant. */
    private static String plain(Object v) {
        String s = Literals.sql(v);
        return s.startsWith("(") ? s.substring(1, s.length() - 1) : s;
    }

    static String names(List<Schema.Column> cols) {
        List<String> n = new ArrayList<>();
        for (Schema.Column c : cols) {
            n.add(c.name);
        }
        return String.join(", ", n);
    }

    private List<String> indexes(Schema.Table t) {
        List<String> out = new ArrayList<>();
        List<List<Schema.Column>> indexed = new ArrayList<>();
        int count = rng.weighted(4, 4, 2);
        for (int i = 0; i < count; i++) {
            boolean canUnique = dialect.has(Feature.UNIQUE_INDEX);
            boolean canPlain = dialect.has(Feature.INDEX);
            if (!canUnique && !canPlain) {
                break;
            }
            if (canUnique && (!canPlain || rng.chance(0.3))) {
                List<Schema.Column> candidates = new ArrayList<>();
                for (Schema.Column c : t.columns) {
                    if (!c.unique) {
                        candidates.add(c);
                    }
                }
                if (candidates.isEmpty()) {
                    continue;
                }
                Schema.Column c = rng.pick(candidates);
                c.unique = true;
                t.uniqueKeys.add(List.of(c));
                out.add("CREATE UNIQUE INDEX i" + nextIndex++ + " ON " + t.name + " (" + c.name + ")");
            } else {
                List<Schema.Column> cols = new ArrayList<>();
                cols.add(rng.pick(t.columns));
                if (t.columns.size() > 1 && rng.chance(0.3)) {
                    Schema.Column second = rng.pick(t.columns);
                    if (!cols.contains(second)) {
                        cols.add(second);
                    }
                }
                if (cols.equals(t.primaryKey) || indexed.contains(cols)) {
                    continue; // the key already has an index; an equal one only adds noise
                }
                indexed.add(cols);
                out.add("CREATE INDEX i" + nextIndex++ + " ON " + t.name + " (" + names(cols) + ")");
            }
        }
        return out;
    }

    private List<String> rows(Schema.Table t) {
        List<String> out = new ArrayList<>();
        if (config.maxRows() == 0) {
            return out;
        }
        int count = rng.chance(0.05) ? 0 : rng.between(1, config.maxRows());
        for (int i = 0; i < count; i++) {
            for (int attempt = 0; attempt < 10; attempt++) {
                List<Object> row = new ArrayList<>();
                List<Boolean> named = new ArrayList<>();
                boolean ok = true;
                for (Schema.Column c : t.columns) {
                    Object v;
                    boolean name = true;
                    if (c.references != null) {
                        List<Object> parentValues = new ArrayList<>();
                        for (List<Object> pr : c.references.table.rows) {
                            Object pv = pr.get(c.references.index());
                            if (pv != null) {
                                parentValues.add(pv);
                            }
                        }
                        v = parentValues.isEmpty() || (!c.notNull && rng.chance(0.2)) ? null : rng.pick(parentValues);
                    } else if (c.defaultValue != null && rng.chance(0.2)) {
                        v = c.defaultValue;
                        name = false;
                    } else if (!c.notNull && !c.unique && rng.chance(0.15)) {
                        v = null;
                    } else {
                        v = c.unique ? pool.fresh(c.type) : pool.valueFor(c);
                    }
                    if (!c.accepts(v) || (c.unique && v == null)) {
                        ok = false;
                        break;
                    }
                    row.add(v);
                    named.add(name);
                }
                if (!ok || !t.keysAllow(row)) {
                    continue;
                }
                t.rows.add(row);
                named.set(0, true); // never an empty column list
                List<String> cols = new ArrayList<>();
                List<String> vals = new ArrayList<>();
                for (int k = 0; k < t.columns.size(); k++) {
                    pool.record(t.columns.get(k), row.get(k));
                    if (named.get(k)) {
                        cols.add(t.columns.get(k).name);
                        vals.add(Literals.sql(row.get(k)));
                    }
                }
                if (config.instrumented()) {
                    cols.add(Instrumentation.RID);
                    vals.add("'" + nextRid++ + "'");
                    cols.add(Instrumentation.WL);
                    vals.add("',0'"); // T0, the initial state
                }
                out.add("INSERT INTO " + t.name + " (" + String.join(", ", cols) + ") VALUES (" + String.join(", ", vals) + ")");
                break;
            }
        }
        return out;
    }
}
