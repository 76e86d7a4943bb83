package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job jar carrying the core jar (with its native library) and its own Jackson, resubmitted
 * {@value LoaderLeaks#ROUNDS} times on one JVM: every class loader is collected, every copy of
 * the library unmapped, and RSS stays flat ({@link LoaderLeaks}).
 */
class LoaderLeakTest {
    @TempDir
    Path tmp;

    @Test
    void everyClassLoaderOverTheCoreJarIsCollectedWithItsLibrary() throws Exception {
        Path coreJar = Paths.get(System.getProperty("durablejournal.test.jar"));
        assertTrue(Files.isRegularFile(coreJar), "the build passes the core jar: " + coreJar);
        List<Path> jars = new ArrayList<>();
        jars.add(coreJar);
        jars.addAll(LoaderLeaks.classPathJars("jackson-"));
        assertTrue(jars.size() >= 3, "the core jar and its Jackson: " + jars);
        jars.add(LoaderLeaks.locationOf(LoaderRoundCall.class));
        String answer = LoaderLeaks.assertNothingLeftBehind(LoaderRoundCall.class.getName(), jars, Collections.emptyList(), tmp);
        assertEquals("{\"reply\":1.5} {\"reply\":1.5} entries=1 refused=STORE_IO", answer);
    }
}
