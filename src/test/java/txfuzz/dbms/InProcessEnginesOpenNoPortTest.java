package txfuzz.dbms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/security.md: the in-process engines run inside the txfuzz JVM and open no port. Compares the TCP
 * sockets this JVM listens on (its socket descriptors matched against /proc/net/tcp and tcp6) before and
 * while a database of the engine is open and used.
 */
class InProcessEnginesOpenNoPortTest {

    static List<String> inProcess() {
        return Targets.engines().stream().filter(e -> !e.server()).map(Engine::name).toList();
    }

    @ParameterizedTest
    @MethodSource("inProcess")
    void aDatabaseInUseListensOnNoPort(String name) throws Exception {
        Set<String> before = listeningSocketsOfThisProcess();
        Engine e = Targets.engine(name);
        try (Target t = TestServers.open(name); Database db = t.freshDatabase();
             Connection c = db.connect(e.defaultIsolationLevel(), e.modes().get(0))) {
            EngineTests.exec(c, "CREATE TABLE k(i INT PRIMARY KEY)", "INSERT INTO k VALUES (1)");
            Set<String> during = listeningSocketsOfThisProcess();
            during.removeAll(before);
            assertEquals(Set.of(), during, name + " listens");
        }
    }

    /** The inodes of this process's sockets that /proc/net/tcp{,6} show in state LISTEN (0A). */
    private static Set<String> listeningSocketsOfThisProcess() throws IOException {
        Set<String> mine = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            fds.forEach(fd -> {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        mine.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException closed) {
                    // closed while listed
                }
            });
        }
        Set<String> listening = new HashSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path p = Path.of(table);
            if (!Files.exists(p)) {
                continue;
            }
            for (String line : Files.readAllLines(p)) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[3].equals("0A") && mine.contains(f[9])) {
                    listening.add(f[1] + " inode " + f[9]);
                }
            }
        }
        return listening;
    }
}
