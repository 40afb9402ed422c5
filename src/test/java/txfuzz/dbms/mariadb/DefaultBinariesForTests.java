package txfuzz.dbms.mariadb;

import java.nio.file.Path;

/** For tests: the default MariaDB binaries, unpacked and checked in the private home of this JVM. */
public final class DefaultBinariesForTests {
    private DefaultBinariesForTests() {
    }

    public static Path unpack() {
        return MariadbBinaries.binaries();
    }
}
