package txfuzz.dbms.hsqldb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The drops the reset reads off HSQLDB's SCRIPT lines (lines as HSQLDB 2.7.4 prints them). */
class PublicObjectDropTest {
    @Test
    void tablesViewsAndSequencesOfPublicAreDroppedByTheNameScriptGives() {
        assertEquals(Optional.of("DROP TABLE IF EXISTS PUBLIC.T CASCADE"),
                HsqldbTarget.publicObjectDrop("CREATE MEMORY TABLE PUBLIC.T(ID INTEGER PRIMARY KEY,V INTEGER,UNIQUE(V))"));
        assertEquals(Optional.of("DROP TABLE IF EXISTS PUBLIC.\"odd \"\"name\" CASCADE"),
                HsqldbTarget.publicObjectDrop("CREATE MEMORY TABLE PUBLIC.\"odd \"\"name\"(A INTEGER)"));
        assertEquals(Optional.of("DROP TABLE IF EXISTS PUBLIC.\"a(b\" CASCADE"), HsqldbTarget.publicObjectDrop("CREATE CACHED TABLE PUBLIC.\"a(b\"(A INTEGER)"));
        assertEquals(Optional.of("DROP TABLE IF EXISTS PUBLIC.G CASCADE"), HsqldbTarget.publicObjectDrop("CREATE GLOBAL TEMPORARY TABLE PUBLIC.G(A INTEGER)"));
        assertEquals(Optional.of("DROP VIEW IF EXISTS PUBLIC.W CASCADE"),
                HsqldbTarget.publicObjectDrop("CREATE VIEW PUBLIC.W (ID,V) AS SELECT PUBLIC.T.ID,PUBLIC.T.V FROM PUBLIC.T"));
        assertEquals(Optional.of("DROP SEQUENCE IF EXISTS PUBLIC.S CASCADE"), HsqldbTarget.publicObjectDrop("CREATE SEQUENCE PUBLIC.S AS INTEGER START WITH 0"));
    }

    @Test
    void otherLinesAndOtherSchemasDropNothing() {
        for (String line : new String[] {"CREATE SCHEMA PUBLIC AUTHORIZATION DBA", "CREATE MEMORY TABLE OTHER.X(A INTEGER)",
                "INSERT INTO T VALUES(1,1)", "ALTER SEQUENCE PUBLIC.S RESTART WITH 0", "CREATE USER SA PASSWORD DIGEST 'd41d8cd98f00b204e9800998ecf8427e'",
                "CREATE FUNCTION PUBLIC.F(X INTEGER) RETURNS INTEGER RETURN X+1"}) {
            assertEquals(Optional.empty(), HsqldbTarget.publicObjectDrop(line), line);
        }
    }
}
