package txfuzz.dbms.server;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class UnpackedFilesTest {
    @TempDir
    Path root;

    private UnpackedFiles manifestOf(String path, String content) throws Exception {
        byte[] b = content.getBytes(StandardCharsets.UTF_8);
        return new UnpackedFiles(List.of(new UnpackedFiles.Entry(path, b.length, UnpackedFiles.crc32(new ByteArrayInputStream(b)))));
    }

    @Test
    void anUntouchedCopyPasses() throws Exception {
        Files.createDirectories(root.resolve("bin"));
        Files.writeString(root.resolve("bin/initdb"), "#!/bin/sh\necho real\n");
        manifestOf("bin/initdb", "#!/bin/sh\necho real\n").verify(root);
    }

    @Test
    void aChangedOrPlantedOrLinkedFileIsRefused() throws Exception {
        UnpackedFiles m = manifestOf("bin/initdb", "#!/bin/sh\necho real\n");
        Files.createDirectories(root.resolve("bin"));
        Files.writeString(root.resolve("bin/initdb"), "#!/bin/sh\necho evil\n"); // same size, other bytes
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> m.verify(root));
        assertTrue(e.getMessage().contains("differs"), e.getMessage());
        Files.delete(root.resolve("bin/initdb"));
        assertThrows(IllegalStateException.class, () -> m.verify(root), "missing");
        Path elsewhere = Files.writeString(root.resolve("real"), "#!/bin/sh\necho real\n");
        Files.createSymbolicLink(root.resolve("bin/initdb"), elsewhere);
        assertThrows(IllegalStateException.class, () -> m.verify(root), "a link may point anywhere later");
    }
}
