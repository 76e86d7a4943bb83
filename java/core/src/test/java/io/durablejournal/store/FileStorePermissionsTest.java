package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.JournalException;
import io.durablejournal.LogCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file store's permissions through the Java API (the rules are the native store's, tested in
 * tests/store_file_permissions.rs): a directory made by {@code Files.createDirectories} under the
 * usual umask ends up 0700 with 0600 files; a store of an older build (0755, files 0644) is refused
 * with STORE_IO naming it, opened with a logged warning under {@code WARN}, made private under
 * {@code TIGHTEN}.
 */
class FileStorePermissionsTest {
    private static final EventIdentity EVENT = EventIdentity.occurrence("occ-1");

    @TempDir
    Path tmp;

    private static String mode(Path path) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private static Map<String, String> fileModes(Path dir) throws Exception {
        Map<String, String> modes = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                modes.put(file.getFileName().toString(), mode(file));
            }
        }
        return modes;
    }

    /** A store as a build that left modes to the umask wrote it: 0755, files 0644. */
    private Path olderBuildStore() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("older"));
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            store.put("user-1", 0, "chat", EVENT, new ActionState());
        }
        for (String file : fileModes(dir).keySet()) {
            Files.setPosixFilePermissions(dir.resolve(file), PosixFilePermissions.fromString("rw-r--r--"));
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    @Test
    void aNewStoreIsItsOwnersAlone() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("new"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            store.put("user-1", 0, "chat", EVENT, new ActionState());
        }
        assertEquals("rwx------", mode(dir));
        Map<String, String> files = fileModes(dir);
        assertTrue(files.size() >= 2, files.toString());
        files.forEach((name, mode) -> assertEquals("rw-------", mode, name));
    }

    @Test
    void aStoreOfAnOlderBuildIsRefusedWithItsPathAndMode() throws Exception {
        Path dir = olderBuildStore();
        JournalException refused = assertThrows(JournalException.class, () -> ActionStateStores.openFileStore(dir));
        assertEquals(JournalException.Code.STORE_IO, refused.getCode());
        assertTrue(refused.getMessage().contains(dir.toString()) && refused.getMessage().contains("mode 0755")
                && refused.getMessage().contains("chmod 700"), refused.getMessage());
        assertEquals("rwxr-xr-x", mode(dir), "a refused open changes nothing");
    }

    @Test
    void warnOpensItAsItIsAndLogsTheDirectoryAndItsMode() throws Exception {
        Path dir = olderBuildStore();
        List<String> warnings;
        // The warning goes where a Flink runtime's lines go (SLF4J, here its Log4j binding).
        try (LogCapture log = new LogCapture(NativeActionStateStore.class.getName());
                NativeActionStateStore store = ActionStateStores.openFileStore(dir,
                        FileStoreOptions.defaults().permissions(FileStoreOptions.PermissionCheck.WARN))) {
            assertNotNull(store.get("user-1", 0, "chat", EVENT));
            warnings = log.lines().stream().filter(line -> line.startsWith("WARN ")).collect(Collectors.toList());
        }
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains(dir.toString()) && warnings.get(0).contains("0755"), warnings.get(0));
        assertEquals("rwxr-xr-x", mode(dir));
    }

    @Test
    void tightenMakesTheDirectoryAndItsFilesPrivate() throws Exception {
        Path dir = olderBuildStore();
        FileStoreOptions tighten = FileStoreOptions.defaults().permissions(FileStoreOptions.PermissionCheck.TIGHTEN);
        assertTrue(tighten.toString().contains("permissions TIGHTEN"), tighten.toString());
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir, tighten)) {
            assertNotNull(store.get("user-1", 0, "chat", EVENT));
        }
        assertEquals("rwx------", mode(dir));
        fileModes(dir).forEach((name, mode) -> assertEquals("rw-------", mode, name));
    }
}
