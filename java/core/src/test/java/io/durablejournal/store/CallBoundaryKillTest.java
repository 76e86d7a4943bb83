package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A child JVM runs an action whose durable call goes to a service that deduplicates by the call's
 * idempotency key, and is killed with SIGKILL at one boundary of the call; the action then runs
 * again over the same file store, as after a restore. With the default semantics the call may run
 * twice, and the service applies its effect once; an at-most-once call's body never runs twice,
 * and where it was interrupted the action sees {@code CallInterruptedException}, or its
 * reconciler's answer.
 *
 * <p>A kill while a record is being written but before the store acknowledged it leaves either no
 * record or the whole record (the file store drops torn frames, FileStoreKillTest): the states at
 * {@code BEFORE_CALL} and {@code BODY_START} for the PENDING record, at {@code BODY_END} and
 * {@code AFTER_CALL} for the outcome.
 */
class CallBoundaryKillTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} killed at {1}")
    @CsvSource({
        // mode, boundary, the re-run's answer, requests the service took, bodies started
        "DEFAULT,      BEFORE_CALL, RESULT,      1, 1",
        "DEFAULT,      BODY_START,  RESULT,      1, 1",
        "DEFAULT,      IN_SERVICE,  RESULT,      2, 2",
        "DEFAULT,      BODY_END,    RESULT,      2, 2",
        "DEFAULT,      AFTER_CALL,  RESULT,      1, 1",
        "AT_MOST_ONCE, BEFORE_CALL, RESULT,      1, 1",
        "AT_MOST_ONCE, BODY_START,  INTERRUPTED, 0, 0",
        "AT_MOST_ONCE, IN_SERVICE,  INTERRUPTED, 1, 1",
        "AT_MOST_ONCE, BODY_END,    INTERRUPTED, 1, 1",
        "AT_MOST_ONCE, AFTER_CALL,  RESULT,      1, 1",
        "RECONCILED,   IN_SERVICE,  RESULT,      1, 1",
    })
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aCallKilledAtABoundaryTakesEffectOnceAndAnAtMostOnceBodyNeverRunsTwice(
            String mode, String boundary, String answer, int requests, int bodies) throws Exception {
        Path store = Files.createDirectories(tmp.resolve("store"));
        Path serviceDir = Files.createDirectories(tmp.resolve("service"));
        killAt(store, serviceDir, mode, boundary);

        ByteArrayOutputStream rerunOut = new ByteArrayOutputStream();
        String rerun = CallBoundaryProcess.run(store.toString(), serviceDir.toString(), mode, "NONE",
                new PrintStream(rerunOut, true, "UTF-8"));

        DedupService service = new DedupService(serviceDir);
        List<String> effects = service.effects();
        assertEquals(answer, rerun.split(" ")[0], rerun);
        assertEquals(requests, service.requests().size(), "requests " + service.requests());
        assertEquals(bodies, service.bodies().size(), "bodies started");
        assertEquals(Collections.nCopies(requests, effects.isEmpty() ? null : effects.get(0)), service.requests(),
                "every request carried the same key");
        assertTrue(effects.size() <= 1, "0 duplicate effects: " + effects);
        String key = rerun.substring(rerun.lastIndexOf(' ') + 1);
        assertTrue(key.startsWith("idem:"), rerun);
        if (rerun.startsWith("RESULT")) {
            assertEquals(Collections.singletonList(key), effects, "the call took effect once, under its key");
        } else if (requests > 0) {
            assertEquals(Collections.singletonList(key), effects, "the interruption names the key the service saw");
        }
    }

    /** Starts the child and SIGKILLs it once it says it is at {@code boundary}. */
    private void killAt(Path store, Path serviceDir, String mode, String boundary) throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                CallBoundaryProcess.class.getName(), store.toString(), serviceDir.toString(), mode, boundary);
        Path stderr = tmp.resolve("child-stderr.txt");
        builder.redirectError(stderr.toFile());
        Process child = builder.start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line = lines.readLine();
            assertEquals("AT " + boundary, line, "the child stopped at the boundary; stderr: "
                    + new String(Files.readAllBytes(stderr), StandardCharsets.UTF_8));
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(128 + 9, child.exitValue(), "the child died of SIGKILL");
        } finally {
            child.destroyForcibly();
        }
    }
}
