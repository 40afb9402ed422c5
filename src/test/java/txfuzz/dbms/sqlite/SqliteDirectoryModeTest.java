package txfuzz.dbms.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;

import static txfuzz.model.IsolationLevel.SERIALIZABLE;

/** docs/security.md: SQLite's database files live in a fresh temporary directory only their owner can enter. */
class SqliteDirectoryModeTest {

    @Test
    void theDatabaseDirectoryIsOwnerOnly() throws Exception {
        try (SqliteTarget target = new SqliteTarget(); Database db = target.freshDatabase();
             Connection c = db.connect(SERIALIZABLE, "deferred");
             Statement s = c.createStatement(); ResultSet r = s.executeQuery("PRAGMA database_list")) {
            r.next();
            Path dir = Path.of(r.getString("file")).getParent();
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)), dir.toString());
        }
    }
}
