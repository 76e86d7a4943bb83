package io.durablejournal.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

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
}
