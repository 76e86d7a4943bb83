package io.durablejournal.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every file of a directory (not its subdirectories) with its bytes: what a test that must leave a
 * store unchanged (a replay reads it, writes nothing) compares before and after.
 */
public final class DirectoryBytes {
    private final Path dir;
    private final Map<Path, byte[]> files;

    private DirectoryBytes(Path dir, Map<Path, byte[]> files) {
        this.dir = dir;
        this.files = files;
    }

    /** The files of {@code dir} now. */
    public static DirectoryBytes of(Path dir) throws IOException {
        Map<Path, byte[]> bytes = new TreeMap<>();
        List<Path> listed;
        try (Stream<Path> listing = Files.list(dir)) {
            listed = listing.filter(Files::isRegularFile).collect(Collectors.toList());
        }
        for (Path file : listed) {
            bytes.put(file, Files.readAllBytes(file));
        }
        return new DirectoryBytes(dir, bytes);
    }

    /** Asserts that the directory holds the same files with the same bytes as when this was taken. */
    public void assertUnchanged() throws IOException {
        DirectoryBytes now = of(dir);
        assertEquals(files.keySet(), now.files.keySet(), "no file created or removed in " + dir);
        files.forEach((file, bytes) -> assertArrayEquals(bytes, now.files.get(file), file + " unchanged"));
    }
}
