package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flink.ActionStateStoreFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.CallResult;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.junit.jupiter.api.Test;

/**
 * The six journal methods apache/flink-agents#926 adds to {@code DurableExecutionContext}, which
 * {@link NativeJournalContext} declares ahead of it, called as #926's {@code
 * durableExecuteAllAsync} calls them (reserve a PENDING slot per call of a batch, finalize each
 * slot by index, move the index past the batch; on recovery read the slots by index): what they
 * record is the native journal's, and replays with its semantics.
 */
class Pr926JournalMethodsTest {
    private static final byte[] CHAT = "\"hello\"".getBytes(StandardCharsets.UTF_8);
    private static final byte[] FAILURE = "{\"exceptionClass\":\"java.io.IOException\",\"message\":\"quota\"}"
            .getBytes(StandardCharsets.UTF_8);
    private static final List<String> NO_DIGESTS = Arrays.asList("", "", "");

    private final AgentPlan plan = Fixtures.plan();
    private final Action draft = Fixtures.draft(plan);

    /** An attempt of the action: Flink Agents' context as the operator prepares it, the native journal installed. */
    private NativeJournalContext attempt(JournalActionStateStore store, String key) {
        RunnerContextImpl context = Fixtures.operatorContext(store, key, 1, draft, Fixtures.input(1), plan);
        return ServedStates.installJournal(context);
    }

    @Test
    void aBatchIsRecordedByIndexAndReplaysANullAndAFailureAsRecorded() {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            NativeJournalContext first = attempt(store, "user-1");
            first.reservePendingBatch(Arrays.asList("chat", "lookup", "send"), NO_DIGESTS);
            first.finalizeCallAt(1, "lookup", "", null, null); // a batch finishes in any order; lookup returned null
            first.finalizeCallAt(0, "chat", "", CHAT, null);
            first.finalizeCallAt(2, "send", "", null, FAILURE);
            first.advanceCallIndexBy(3);
            assertEquals(3, first.getCurrentCallIndex());
            first.release(); // the attempt ends (a failover)

            NativeJournalContext replay = attempt(store, "user-1");
            CallResult chat = replay.getCallResultAt(0);
            assertTrue(chat.isSuccess());
            assertArrayEquals(CHAT, chat.getResultPayload());
            CallResult lookup = replay.getCallResultAt(1);
            assertTrue(lookup.isSuccess(), "a recorded null is a recorded success");
            assertNull(lookup.getResultPayload());
            CallResult send = replay.getCallResultAt(2);
            assertTrue(send.isFailure());
            assertArrayEquals(FAILURE, send.getExceptionPayload());
            assertNull(replay.getCallResultAt(3), "past the batch");
            // The bridge's own replay agrees with the slots read by index.
            assertEquals(Boolean.TRUE, replay.matchNextOrClearSubsequentCallResult("chat", "")[0]);
        }
    }

    @Test
    void aBatchInterruptedLeavesItsUnfinishedCallsPendingAndAClearFromAnIndexIsPersisted() {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            NativeJournalContext first = attempt(store, "user-2");
            first.reservePendingBatch(Arrays.asList("a", "b"), Arrays.asList("", "0123456789abcdef"));
            first.finalizeCallAt(0, "a", "", CHAT, null);
            first.release(); // crash while b runs

            NativeJournalContext replay = attempt(store, "user-2");
            CallResult pending = replay.getCallResultAt(1);
            assertTrue(pending.isPending());
            assertEquals("b", pending.getFunctionId());
            assertEquals("0123456789abcdef", pending.getArgsDigest(), "the call's args digest is its own field again");
            replay.clearCallResultsFrom(1);
            replay.release();

            NativeJournalContext cleared = attempt(store, "user-2");
            assertTrue(cleared.getCallResultAt(0).isSuccess());
            assertNull(cleared.getCallResultAt(1), "the clear was persisted");
        }
    }

    @Test
    void aBatchWithMoreIdsThanDigestsIsRefusedWithNothingRecorded() {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            NativeJournalContext first = attempt(store, "user-3");
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> first.reservePendingBatch(Arrays.asList("a", "b"), Collections.singletonList("")));
            assertEquals("functionIds size (2) must match argsDigests size (1)", refused.getMessage());
            assertNull(first.getCallResultAt(0));
            assertThrows(RuntimeException.class, () -> first.finalizeCallAt(0, "a", "", CHAT, null),
                    "no slot to finalize");
        }
    }
}
