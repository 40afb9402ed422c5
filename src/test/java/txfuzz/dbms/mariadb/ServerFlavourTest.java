package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Which server a MySQL-protocol URL reaches, from what it says it is: MariaDB and MySQL (its builds too) are judged by what
 * their manuals promise; another engine that speaks the protocol is refused, since txfuzz does not know its promises.
 */
@Tag("unit")
class ServerFlavourTest {
    @Test
    void mariadbAndMysqlBuildsAreKnown() {
        assertEquals(Optional.of("MariaDB"), ServerInfo.flavourOf("11.4.5-MariaDB", "MariaDB Server"));
        assertEquals(Optional.of("MariaDB"), ServerInfo.flavourOf("10.11.5-MariaDB-1:10.11.5+maria~ubu2204", "mariadb.org binary distribution"));
        assertEquals(Optional.of("MySQL"), ServerInfo.flavourOf("8.0.36", "MySQL Community Server - GPL"));
        assertEquals(Optional.of("MySQL"), ServerInfo.flavourOf("8.0.36-28", "Percona Server (GPL), Release '28', Revision '47601f19'"));
        assertEquals(Optional.of("MySQL"), ServerInfo.flavourOf("8.0.28", "Source distribution"));
    }

    @Test
    void anotherEngineSpeakingTheProtocolIsRefusedEvenWhereItSaysMysqlCompatible() {
        assertEquals(Optional.empty(), ServerInfo.flavourOf("8.0.11-TiDB-v7.5.0", "TiDB Server (Apache License 2.0) Community Edition, MySQL 8.0 compatible"));
        assertEquals(Optional.empty(), ServerInfo.flavourOf("8.0.30-Vitess", "Version: 19.0.0"));
        assertEquals(Optional.empty(), ServerInfo.flavourOf("5.7.25", "OceanBase 4.2.1.0 (r1) (Built Oct 19 2023)"));
        assertEquals(Optional.empty(), ServerInfo.flavourOf("5.7.0", "some server"));
    }
}
