package txfuzz.gen;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The generated schema, with what the statement generator needs to know about constraints. */
final class Schema {
    final List<Table> tables = new ArrayList<>();

    /** A column check constraint {@code column op value}. */
    record Check(String op, Object value) {
        /** SQL semantics: a NULL value passes a check. */
        boolean accepts(Object v) {
            if (v == null) {
                return true;
            }
            int c = Literals.compare(v, value);
            return switch (op) {
                case ">" -> c > 0;
                case ">=" -> c >= 0;
                case "<" -> c < 0;
                case "<=" -> c <= 0;
                case "<>" -> c != 0;
                default -> throw new IllegalStateException(op);
            };
        }
    }

    static final class Column {
        final Table table;
        final String name;
        final ColType type;
        boolean notNull;
        /** Declared PRIMARY KEY (single column) or UNIQUE constraint: usable as a conflict target. */
        boolean uniqueConstraint;
        /** No two rows may hold the same non-null value (single-column PK, UNIQUE or unique index). */
        boolean unique;
        Object defaultValue;
        Check check;
        /** The parent column this one references, or null. */
        Column references;

        Column(Table table, String name, ColType type) {
            this.table = table;
            this.name = name;
            this.type = type;
        }

        int index() {
            return table.columns.indexOf(this);
        }

        /** An INSERT must name it: omitting it would give NULL to a NOT NULL column. */
        boolean required() {
            return notNull && defaultValue == null;
        }

        boolean accepts(Object v) {
            if (v == null) {
                return !notNull;
            }
            return check == null || check.accepts(v);
        }

        @Override
        public String toString() {
            return table.name + "." + name;
        }
    }

    static final class Table {
        final String name;
        final List<Column> columns = new ArrayList<>();
        /** Primary key columns, empty when the table has none. */
        final List<Column> primaryKey = new ArrayList<>();
        /** PK and single-column UNIQUE constraints and unique indexes, as column lists. */
        final List<List<Column>> uniqueKeys = new ArrayList<>();
        /** Initial rows, one value per column (Integer, Double, String or null). */
        final List<List<Object>> rows = new ArrayList<>();

        Table(String name) {
            this.name = name;
        }

        List<Column> columnsOf(ColType type) {
            List<Column> out = new ArrayList<>();
            for (Column c : columns) {
                if (c.type == type) {
                    out.add(c);
                }
            }
            return out;
        }

        /** Whether {@code row} may join the initial rows without breaking a key. */
        boolean keysAllow(List<Object> row) {
            for (List<Column> key : uniqueKeys) {
                for (List<Object> other : rows) {
                    boolean same = true;
                    for (Column c : key) {
                        Object a = row.get(c.index());
                        Object b = other.get(c.index());
                        // NULLs never collide in a unique key (we keep NULLs out of unique columns anyway)
                        if (a == null || b == null || !Objects.equals(a, b)) {
                            same = false;
                            break;
                        }
                    }
                    if (same) {
                        return false;
                    }
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
