package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.CallResult;
import io.durablejournal.CountingCall;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A separate JVM journals calls into the file store and is killed with SIGKILL in the middle of
 * its stream. Reopening the store must find every call the child saw acknowledged, and a journal
 * over each must replay it instead of running it again.
 */
class FileStoreKillTest {
    private static final int ACKS_BEFORE_KILL = 150;

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyAcknowledgedWriteSurvivesSigkillAndReplays() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("store"));
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                StoreWriterProcess.class.getName(), dir.toString(), "1000000");
        builder.redirectError(tmp.resolve("child-stderr.txt").toFile());
        Process child = builder.start();
        List<Integer> acked = new ArrayList<>();
        int exit;
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while (acked.size() < ACKS_BEFORE_KILL && (line = lines.readLine()) != null) {
                if (line.startsWith("ACK ")) {
                    acked.add(Integer.parseInt(line.substring(4)));
                }
            }
            assertEquals(ACKS_BEFORE_KILL, acked.size(), "the child stopped early; stderr: " + stderr());
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            exit = child.exitValue();
        } finally {
            child.destroyForcibly();
        }
        assertEquals(128 + 9, exit, "the child died of SIGKILL, in the middle of its stream");

        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            StoreStats stats = store.stats();
            assertTrue(stats.recoveredRecords() >= 2L * ACKS_BEFORE_KILL,
                    "each acknowledged call is a put and a journal record: " + stats);
            for (int i : acked) {
                EventIdentity event = EventIdentity.rootOccurrence(StoreWriterProcess.key(i), StoreWriterProcess.seq(i));
                ActionState state = store.get(StoreWriterProcess.key(i), StoreWriterProcess.seq(i), "act", event);
                assertNotNull(state, "acknowledged call " + i + " is in the reopened store");
                CallResult slot = state.getCallResults().get(0);
                assertEquals(StoreWriterProcess.callId(i), slot.getFunctionId());
                assertTrue(slot.isSuccess());
                CountingCall<String> again = CountingCall.returning(StoreWriterProcess.callId(i), "must not run");
                try (DurableExecutionContext ctx = store.openContext(StoreWriterProcess.key(i), StoreWriterProcess.seq(i), "act", event, null)) {
                    assertEquals(StoreWriterProcess.value(i), new RunnerContextImpl(ctx).durableExecute(again));
                }
                assertEquals(0, again.calls.get(), "call " + i + " replayed from the journal");
            }
        }
    }

    private String stderr() {
        File file = tmp.resolve("child-stderr.txt").toFile();
        try {
            return new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
