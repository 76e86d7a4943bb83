package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.ActionState;
import io.durablejournal.CallResult;
import io.durablejournal.DurableExecutionContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileStoreOptions#retainCompleted} through the Java binding, read back with {@link RetainedAction#read}. */
class FileStoreRetentionTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path tmp;

    /** What the project's operators do: journal the calls, then put the completed state with its output. */
    private static void runAction(NativeActionStateStore store, long seq) throws Exception {
        EventIdentity event = EventIdentity.rootOccurrence("user", seq);
        ActionState finished;
        try (DurableExecutionContext journal = store.openContext("user", seq, "answer", event, null)) {
            journal.recordCallCompletion("llm", ("\"answer " + seq + "\"").getBytes(StandardCharsets.UTF_8), null);
            journal.recordCallCompletion("tool:mail", null, null);
            finished = journal.getActionState();
        }
        // A number wider than a long: the retained copy keeps it exactly.
        finished.addOutputEvent(MAPPER.readTree("{\"output\":" + seq + ",\"exact\":123456789012345678901234567890}"));
        finished.markCompleted();
        store.put("user", seq, "answer", event, finished);
    }

    @Test
    void completedActionsAreKeptWithTheirCallsAfterThePrune() throws Exception {
        FileStoreOptions options = FileStoreOptions.defaults().retainCompleted(Duration.ofHours(1), 2).planDigest("plan-7");
        try (NativeActionStateStore store = ActionStateStores.openFileStore(tmp, options)) {
            for (long seq = 0; seq < 3; seq++) {
                runAction(store, seq);
            }
            store.pruneState("user", 2);
            assertNull(store.get("user", 2, "answer", EventIdentity.rootOccurrence("user", 2)), "the live entry is gone");
        }
        List<RetainedAction> retained = RetainedAction.read(tmp);
        assertEquals(2, retained.size(), "the count bound keeps the newest two");
        RetainedAction last = retained.get(1);
        assertEquals("str:user", last.getKey());
        assertEquals(2, last.getSeq());
        assertEquals("answer", last.getActionName());
        assertEquals("plan-7", last.getPlanDigest());
        assertTrue(last.getEvent().startsWith("occ:"), last.getEvent());
        ActionState state = last.getState();
        assertTrue(state.isCompleted());
        List<CallResult> calls = state.getCallResults();
        assertEquals(2, calls.size());
        assertEquals("llm", calls.get(0).getFunctionId());
        assertArrayEquals("\"answer 2\"".getBytes(StandardCharsets.UTF_8), calls.get(0).getResultPayload());
        assertEquals("tool:mail", calls.get(1).getFunctionId());
        assertTrue(calls.get(1).isSuccess());
        assertNull(calls.get(1).getResultPayload(), "a recorded null");
        assertEquals("{\"output\":2,\"exact\":123456789012345678901234567890}", state.getOutputEventsJson().get(0));
    }

    @Test
    void withoutTheOptionNothingIsRetained() throws Exception {
        try (NativeActionStateStore store = ActionStateStores.openFileStore(tmp)) {
            runAction(store, 0);
        }
        assertFalse(Files.exists(tmp.resolve("retained.log")));
        assertEquals(0, RetainedAction.read(tmp).size());
        assertNull(FileStoreOptions.defaults().getRetainFor());
    }

    @Test
    void badBoundsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> FileStoreOptions.defaults().retainCompleted(Duration.ZERO, 1));
        assertThrows(IllegalArgumentException.class, () -> FileStoreOptions.defaults().retainCompleted(Duration.ofMinutes(1), 0));
        FileStoreOptions options = FileStoreOptions.defaults().retainCompleted(Duration.ofSeconds(5), 3).groupCommit(2);
        assertEquals(Duration.ofSeconds(5), options.getRetainFor(), "other options keep the retention");
        assertEquals(3, options.getRetainCount());
        assertTrue(options.toString().contains("retain 3 for 5000 ms"), options.toString());
    }
}
