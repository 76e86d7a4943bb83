package io.durablejournal.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bundled library's place in the jar: the build and the loader must agree on it. */
class NativeLibraryTest {
    @Test
    void builtJarHoldsTheLibraryWhereTheLoaderLooksForIt() throws IOException {
        String jar = System.getProperty("durablejournal.test.jar");
        assertNotNull(jar, "build.gradle passes the built jar as durablejournal.test.jar");
        try (JarFile file = new JarFile(jar)) {
            String resource = NativeLibrary.bundledResource().substring(1);
            assertNotNull(file.getJarEntry(resource), "the jar has no " + resource);
        }
    }

    @Test
    void platformNamesAreNormalizedFromTheJvmNames() {
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "amd64"));
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "x86_64"));
        assertEquals("linux-aarch64", NativeLibrary.platform("Linux", "aarch64"));
        assertEquals("macos-aarch64", NativeLibrary.platform("Mac OS X", "aarch64"));
        assertEquals("macos-x86_64", NativeLibrary.platform("Mac OS X", "x86_64"));
        assertEquals("windows-x86_64", NativeLibrary.platform("Windows 11", "amd64"));
        assertEquals("freebsd-riscv64", NativeLibrary.platform("FreeBSD", "riscv64"));
    }

    @Test
    void extractedCopiesOfJvmsThatDiedAreRemovedAndThoseOfRunningOnesStay(@TempDir Path tmp) throws Exception {
        Process gone = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-version")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        gone.waitFor();
        Path orphan = Files.createDirectory(tmp.resolve(NativeLibrary.EXTRACTED_PREFIX + gone.pid() + "-1234"));
        Files.write(orphan.resolve("libdurable_journal.so"), new byte[] {1, 2, 3});
        Path running = Files.createDirectory(tmp.resolve(NativeLibrary.EXTRACTED_PREFIX + ProcessHandle.current().pid() + "-5678"));
        Path foreign = Files.createDirectory(tmp.resolve(NativeLibrary.EXTRACTED_PREFIX + "kafka"));

        NativeLibrary.removeOrphans(tmp);

        assertFalse(Files.exists(orphan), "the copy of a JVM that is gone is removed");
        assertTrue(Files.isDirectory(running), "this JVM's own stays");
        assertTrue(Files.isDirectory(foreign), "a directory not named as ours stays");
        assertEquals(-1, NativeLibrary.ownerPid(NativeLibrary.EXTRACTED_PREFIX + "kafka"));
    }
}
