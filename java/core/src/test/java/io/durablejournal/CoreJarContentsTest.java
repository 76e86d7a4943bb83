package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core jar is what a user without Flink adds: it must hold no class of the Flink
 * integration, the demo or the example (they have jars of their own), and no class of it may
 * refer to Flink, which such a user cannot load.
 */
class CoreJarContentsTest {
    /** Packages that live in other jars (durable-journal-flink, the unpublished examples). */
    private static final List<String> FOREIGN_PACKAGES = Arrays.asList(
            "io/durablejournal/flink/", "io/durablejournal/demo/", "io/durablejournal/example/");

    /**
     * How a class file names another class, in a field or method type or in a reference: its
     * internal name, in the constant pool (ASCII, so the same bytes in modified UTF-8).
     */
    private static final byte[] FLINK_INTERNAL_NAME = "org/apache/flink/".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path tmp;

    @Test
    void builtCoreJarHoldsNoFlinkDemoOrExampleClassAndNoFlinkReference() throws IOException {
        String jar = System.getProperty("durablejournal.test.jar");
        assertNotNull(jar, "build.gradle passes the built jar as durablejournal.test.jar");
        List<String> classes = new ArrayList<>();
        assertEquals(Collections.emptyList(), misplacedClasses(Paths.get(jar), classes));
        assertTrue(classes.contains("io/durablejournal/DurableExecutionContext.class"),
                "the scan read the core's classes: " + classes.size() + " classes");
    }

    @Test
    void scanFindsAClassOfAnotherJarAndAClassThatRefersToFlink() throws IOException {
        // A class compiled against Flink Agents (whose classes name org.apache.flink types),
        // placed in the core's package, and an empty class in the Flink integration's package.
        byte[] refersToFlink = classBytes("org/apache/flink/agents/api/InputEvent.class");
        Path jar = tmp.resolve("bad.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            write(out, "io/durablejournal/Borrowed.class", refersToFlink);
            write(out, "io/durablejournal/flink/Operator.class", new byte[0]);
            write(out, "io/durablejournal/Clean.class", classBytes("io/durablejournal/internal/NativeLibrary.class"));
        }
        assertEquals(
                Arrays.asList(
                        "io/durablejournal/Borrowed.class refers to org/apache/flink/",
                        "io/durablejournal/flink/Operator.class belongs to another jar"),
                misplacedClasses(jar, new ArrayList<>()));
    }

    /** Each class of {@code jar} that breaks the rule, with why; {@code scanned} gets every class read. */
    private static List<String> misplacedClasses(Path jar, List<String> scanned) throws IOException {
        List<String> problems = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            Enumeration<JarEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                String name = entry.getName();
                if (!name.endsWith(".class")) {
                    continue;
                }
                scanned.add(name);
                if (FOREIGN_PACKAGES.stream().anyMatch(name::startsWith)) {
                    problems.add(name + " belongs to another jar");
                } else if (contains(readAll(file.getInputStream(entry)), FLINK_INTERNAL_NAME)) {
                    problems.add(name + " refers to org/apache/flink/");
                }
            }
        }
        return problems;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int start = 0; start + needle.length <= haystack.length; start++) {
            for (int i = 0; i < needle.length; i++) {
                if (haystack[start + i] != needle[i]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static byte[] classBytes(String resource) throws IOException {
        InputStream in = CoreJarContentsTest.class.getClassLoader().getResourceAsStream(resource);
        assertNotNull(in, "on the test classpath: " + resource);
        return readAll(in);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        try (InputStream source = in; ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            source.transferTo(out);
            return out.toByteArray();
        }
    }

    private static void write(JarOutputStream out, String name, byte[] bytes) throws IOException {
        out.putNextEntry(new JarEntry(name));
        out.write(bytes);
        out.closeEntry();
    }
}
