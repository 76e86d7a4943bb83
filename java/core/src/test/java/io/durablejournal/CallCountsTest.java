package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link RunnerContextImpl#getExecutedCallCount()}, {@code getReplayedCallCount()} and {@code
 * getReconciledCallCount()} count (the operators' metrics), on every path a call can take.
 */
class CallCountsTest {
    private static final EventIdentity EVENT = EventIdentity.occurrence("occ-1");
    private final NativeActionStateStore store = ActionStateStores.inMemory();
    private final AtomicInteger bodies = new AtomicInteger();
    private final AtomicInteger reconcilers = new AtomicInteger();

    @AfterEach
    void closeStore() {
        store.close();
    }

    /** A fresh journal over this test's one entry (the store keeps what earlier journals recorded). */
    private DurableExecutionContext journal() {
        return store.openContext("k", 0, "act", EVENT, null);
    }

    private DurableCallable<String> call(String id) {
        return DurableCallable.of(id, String.class, () -> {
            bodies.incrementAndGet();
            return id + "-ran";
        });
    }

    private DurableCallable<String> reconcilable(String id) {
        return DurableCallable.of(id, String.class, () -> {
            bodies.incrementAndGet();
            return id + "-ran";
        }, () -> {
            reconcilers.incrementAndGet();
            return id + "-reconciled";
        });
    }

    private static void assertCounts(int executed, int replayed, int reconciled, RunnerContextImpl calls) {
        assertEquals(List.of(executed, replayed, reconciled),
                List.of(calls.getExecutedCallCount(), calls.getReplayedCallCount(), calls.getReconciledCallCount()),
                "executed, replayed, reconciled");
    }

    /** One run of the action: a plain call, a reconcilable one and an async one, each answering as its body does. */
    private RunnerContextImpl runThreeCalls() throws Exception {
        try (DurableExecutionContext journal = journal()) {
            RunnerContextImpl calls = new RunnerContextImpl(journal);
            assertEquals("a-ran", calls.durableExecute(call("a")));
            assertEquals("b-ran", calls.durableExecute(reconcilable("b")));
            assertEquals("c-ran", calls.durableExecuteAsync(call("c")));
            return calls;
        }
    }

    @Test
    void callsThatRunAreExecutedAndTheirReRunReplaysThem() throws Exception {
        assertCounts(3, 0, 0, runThreeCalls());
        assertCounts(0, 3, 0, runThreeCalls());
        assertEquals(3, bodies.get());
        assertEquals(0, reconcilers.get());
    }

    @Test
    void aPendingCallWithAReconcilerIsReconciledNotExecuted() throws Exception {
        try (DurableExecutionContext journal = journal()) {
            journal.appendPendingCall("b");   // what a run that died inside call b leaves
        }
        try (DurableExecutionContext journal = journal()) {
            RunnerContextImpl calls = new RunnerContextImpl(journal);
            assertEquals("b-reconciled", calls.durableExecute(reconcilable("b")));
            assertEquals("c-ran", calls.durableExecute(call("c")));
            assertCounts(1, 0, 1, calls);
        }
        assertEquals(1, reconcilers.get());
        assertEquals(1, bodies.get(), "only c's body ran");
    }

    @Test
    void aBatchCountsEachCallAsExecutedOrReplayed() throws Exception {
        try (DurableExecutionContext journal = journal()) {
            // A batch interrupted after its first call finished: a is recorded, b still PENDING.
            journal.reservePendingBatch(List.of("a", "b"));
            journal.finalizeCallAt(0, "a", "\"a-ran\"".getBytes(StandardCharsets.UTF_8), null);
        }
        try (DurableExecutionContext journal = journal()) {
            RunnerContextImpl calls = new RunnerContextImpl(journal);
            assertEquals(List.of("a-ran", "b-ran"), calls.durableExecuteAll(List.of(call("a"), call("b"))));
            assertCounts(1, 1, 0, calls);
        }
        try (DurableExecutionContext journal = journal()) {
            RunnerContextImpl calls = new RunnerContextImpl(journal);
            calls.durableExecuteAll(List.of(call("a"), call("b")));
            assertCounts(0, 2, 0, calls);
        }
        assertEquals(1, bodies.get());
    }

    @Test
    void withoutAJournalEveryCallIsExecuted() throws Exception {
        RunnerContextImpl calls = new RunnerContextImpl(null);
        calls.durableExecute(reconcilable("a"));
        calls.durableExecuteAsync(call("b"));
        calls.durableExecuteAll(List.of(call("c"), call("d")));
        assertCounts(4, 0, 0, calls);
        assertEquals(0, reconcilers.get());
    }

    /**
     * After a call recorded at the journal's end, the next call's begin is answered without a
     * native crossing; a slot put at the index in between must still be replayed, not run again.
     */
    @Test
    void aSlotRecordedAfterACallAtTheEndIsReplayedByTheNextCall() throws Exception {
        try (DurableExecutionContext journal = journal()) {
            RunnerContextImpl calls = new RunnerContextImpl(journal);
            calls.durableExecute(call("a"));
            journal.reservePendingBatch(List.of("b"));
            journal.finalizeCallAt(1, "b", "\"b-recorded\"".getBytes(StandardCharsets.UTF_8), null);
            List<String> answers = new java.util.ArrayList<>();
            for (String id : List.of("b", "c", "d")) {
                answers.add(calls.durableExecute(call(id)));
            }
            assertEquals(List.of("b-recorded", "c-ran", "d-ran"), answers);
            assertCounts(3, 1, 0, calls);
            assertEquals(4, journal.size());
        }
        assertEquals(3, bodies.get());
    }
}
