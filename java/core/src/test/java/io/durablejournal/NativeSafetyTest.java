package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs each {@link NativeSafetyProbe} in a child JVM under {@code -Xcheck:jni}: it must exit
 * normally, print its OK line, and the JVM must report no JNI warning (a leaked local reference
 * per array element, a call with an exception pending, ...). A crash of the child, which is what
 * a freed native handle in use looks like, fails the test instead of the whole test run.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NativeSafetyTest {
    @TempDir
    Path tmp;

    @Test
    void aPersisterClosingItsOwnContextNeverCrashesTheJvm() throws Exception {
        List<String> output = runProbe("close-in-persister");
        assertTrue(output.contains("OK close-in-persister: the JVM runs on; the next call got "
                + "java.lang.IllegalStateException: DurableExecutionContext is closed"), String.join("\n", output));
    }

    @Test
    void largeBatchesAndMarkerListsCrossJniWithoutWarnings() throws Exception {
        List<String> output = runProbe("large-jni-arrays", Files.createDirectories(tmp.resolve("store")).toString());
        assertTrue(output.contains("OK large-jni-arrays: a batch of 5000 ids and 100 markers"), String.join("\n", output));
    }

    @Test
    void theCleanerFreesTheNativeObjectsOfOwnersDroppedWithoutClose() throws Exception {
        List<String> output = runProbe("cleaner");
        assertTrue(output.stream().anyMatch(line -> line.startsWith("OK cleaner: 2000 native objects freed")),
                String.join("\n", output));
    }

    /**
     * Runs one probe under {@code -Xcheck:jni}; returns its output lines after checking that it
     * exited 0 and that no line is a JNI warning or error.
     */
    private List<String> runProbe(String... args) throws IOException, InterruptedException {
        Path out = tmp.resolve("probe-" + args[0] + ".txt");
        List<String> command = new ArrayList<>(Arrays.asList(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xcheck:jni", "-Xmx512m", "-cp", System.getProperty("java.class.path")));
        String library = System.getProperty("durablejournal.library");
        if (library != null) {
            command.add("-Ddurablejournal.library=" + library);
        }
        command.add(NativeSafetyProbe.class.getName());
        command.addAll(Arrays.asList(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(child.waitFor(240, TimeUnit.SECONDS), "the probe finished");
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        String all = String.join("\n", lines);
        assertEquals(0, child.exitValue(), "expected a normal exit (a crash is 134 or 139):\n" + all);
        List<String> jniComplaints = lines.stream()
                .filter(line -> !line.startsWith("OK "))
                .filter(line -> line.contains("WARNING") || line.contains("JNI") || line.contains("FATAL"))
                .collect(Collectors.toList());
        assertEquals(List.of(), jniComplaints, "no JNI warning under -Xcheck:jni:\n" + all);
        return lines;
    }
}
