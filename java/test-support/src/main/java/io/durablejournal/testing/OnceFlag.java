package io.durablejournal.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * A fault injected once per test, across the attempts of its job: a flag file outside Flink, which
 * a restarted task (new objects, same JVM and disk) finds. Creating it is atomic, so of the
 * attempts that ask, exactly one is first.
 */
public final class OnceFlag {
    private OnceFlag() {}

    /** True for the first caller only: it created the flag file {@code path}. */
    public static boolean takeFirst(String path) {
        try {
            Files.createFile(Paths.get(path));
            return true;
        } catch (FileAlreadyExistsException taken) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the flag file " + path, e);
        }
    }

    /** Whether the flag file {@code path} was created (by this or an earlier attempt). */
    public static boolean isTaken(String path) {
        return Files.exists(Path.of(path));
    }
}
