package io.durablejournal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** The shared vector files of tests/vectors/, found above the working directory (Gradle runs tests in a project's directory). */
public final class TestVectors {
    private TestVectors() {}

    public static JsonNode read(String fileName) {
        Path relative = Paths.get("tests", "vectors", fileName);
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve(relative))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(relative + " not found above " + System.getProperty("user.dir"));
        }
        try {
            return new ObjectMapper().readTree(dir.resolve(relative).toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
