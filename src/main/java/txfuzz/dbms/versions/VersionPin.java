package txfuzz.dbms.versions;

import txfuzz.dbms.Engine;
import txfuzz.dbms.TargetOptions;

/**
 * How to open an engine at a version as the engine reports it (a corpus entry's "checkedOn", e.g.
 * DuckDB "1.4.4"): the Maven version of its artifact is that version, padded with ".0" to the
 * bundled version's length (sqlite-jdbc 3.50.3.0 bundles SQLite 3.50.3, duckdb_jdbc 1.4.4.0 DuckDB
 * 1.4.4, the zonky binaries 15.10.0 PostgreSQL 15.10) — or the bundled version itself when it is a
 * later build of that same engine version.
 */
public final class VersionPin {
    private VersionPin() {
    }

    public static TargetOptions options(Engine engine, String engineVersion) {
        if (engine.artifact().isEmpty()) {
            return TargetOptions.none();
        }
        return TargetOptions.version(mavenVersion(BundledVersions.of(engine.name()), engineVersion));
    }

    static String mavenVersion(String bundled, String engineVersion) {
        if (bundled.equals(engineVersion) || bundled.startsWith(engineVersion + ".")) {
            return bundled;
        }
        StringBuilder v = new StringBuilder(engineVersion);
        for (int parts = engineVersion.split("\\.").length; parts < bundled.split("\\.").length; parts++) {
            v.append(".0");
        }
        return v.toString();
    }
}
