package txfuzz.dbms.postgres;

import txfuzz.dbms.server.PrivateDirectory;

/**
 * For tests ({@link txfuzz.PrivateHomes}): run in a JVM of its own with {@code -Dtxfuzz.home=<home>}, unpacks
 * there (unless a run did already) and checks the default binaries of each server named in its arguments
 * ({@code postgres}, {@code mariadb}), as a run's first use of that home does, and prints the directory of
 * each, one a line. It starts no server. Runs at the same time in one home are safe: txfuzz's own unpacking
 * is (a lock, or a rename of a whole copy).
 */
public final class UnpackDefaultBinaries {
    private UnpackDefaultBinaries() {
    }

    public static void main(String[] args) {
        for (String engine : args) {
            System.out.println(switch (engine) {
                case "postgres" -> Binaries.prepareBundled(PrivateDirectory.of("postgres"));
                case "mariadb" -> txfuzz.dbms.mariadb.DefaultBinariesForTests.unpack();
                default -> throw new IllegalArgumentException("no binaries to unpack for " + engine);
            });
        }
    }
}
