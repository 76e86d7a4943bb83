package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.internal.NativeLibrary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Rust panic becomes a Java exception and the JVM, and the library, keep working. The export
 * that panics on request exists only in the copy of the library built for tests (cargo feature
 * {@code test-exports}, path in {@code durablejournal.testExportsLibrary}); this JVM runs the
 * shipped one, which must not have it.
 */
class NativeBoundaryTest {
    @TempDir
    Path tmp;

    @Test
    void panicInRustIsAJavaExceptionAndTheJvmCarriesOn() throws Exception {
        List<String> lines = runPanicProbe();
        String all = String.join("\n", lines);
        for (int i = 0; i < 3; i++) {
            assertTrue(lines.contains("OK panic " + i + ": PANIC, message kept: true"), all);
        }
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("OK null: ")), all);
        assertTrue(lines.contains("OK after the panics: alive, 1 slot"), all);
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("FAIL")), all);
    }

    @Test
    void theShippedLibraryHasNoExportThatPanicsOnRequest() {
        NativeLibrary.load();
        assertThrows(UnsatisfiedLinkError.class, () -> DiagnosticsJni.panicWith("x".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void nullArgumentsAtTheNativeBoundaryAreNullPointerExceptions() {
        NativeLibrary.load();
        assertThrows(NullPointerException.class, () -> JournalJni.create(null));
        assertThrows(NullPointerException.class, () -> SerdeJni.normalizeActionState(null));
    }

    @Test
    void aZeroHandleIsRefusedNotDereferenced() {
        NativeLibrary.load();
        JournalException e = assertThrows(JournalException.class, () -> JournalJni.currentCallIndex(0));
        assertEquals(JournalException.Code.CLOSED, e.getCode());
    }

    private List<String> runPanicProbe() throws IOException, InterruptedException {
        String library = System.getProperty("durablejournal.testExportsLibrary");
        assertNotNull(library, "the build names the test-exports library (-Ddurablejournal.testExportsLibrary)");
        Path out = tmp.resolve("panic-probe.txt");
        List<String> command = Arrays.asList(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xcheck:jni", "-cp", System.getProperty("java.class.path"), "-Ddurablejournal.library=" + library,
                PanicProbe.class.getName());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the probe finished");
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        assertEquals(0, child.exitValue(), "expected a normal exit (a crash is 134 or 139):\n" + String.join("\n", lines));
        return lines;
    }
}
