package txfuzz.model;

import java.util.Objects;

/**
 * Where an imported case came from: a schedule written by someone else, read by {@code txfuzz import}
 * (docs/commands.md), so that a finding on it can be written back in the same format.
 *
 * @param format   the format it was read from
 * @param file     the file's name (no directory)
 * @param schedule which schedule of the file: a spec's permutation, a mysqltest file's part (its line), or "schedule"
 */
public record CaseSource(Format format, String file, String schedule) {
    /** The formats {@code txfuzz import} reads. */
    public enum Format {
        /** A PostgreSQL isolation-tester spec (src/test/isolation/specs/*.spec). */
        ISOLATION_SPEC("spec"),
        /** A MariaDB/MySQL mysqltest file (mysql-test/.../t/*.test). */
        MYSQLTEST("test"),
        /** A plain schedule: setup lines, then one {@code T<n>: SQL} line per statement. */
        SCHEDULE("txt");

        private final String extension;

        Format(String extension) {
            this.extension = extension;
        }

        /** The file extension of the format, without the dot. */
        public String extension() {
            return extension;
        }
    }

    public CaseSource {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(schedule, "schedule");
    }
}
