package io.durablejournal;

import static io.durablejournal.TestCalls.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.TestCalls.CountingPersister;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RunnerContextImplTest {
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private final CountingPersister persister = new CountingPersister();
    private final ExecutorService pool = Executors.newFixedThreadPool(4);

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    private RunnerContextImpl fresh() {
        return new RunnerContextImpl(new DurableExecutionContext(new ActionState(), persister), pool);
    }

    /** The action re-runs from the top over what the last run persisted. */
    private RunnerContextImpl recovered() {
        return new RunnerContextImpl(new DurableExecutionContext(persister.last(), persister), pool);
    }

    @Test
    void withoutContextCallsJustRunAndReconcilerIsIgnored() throws Exception {
        RunnerContextImpl runner = new RunnerContextImpl(null);
        CountingCall<String> call = TestCalls.reconcilable("a", "v", "r");
        assertEquals("v", runner.durableExecute(call));
        assertEquals("v", runner.durableExecute(call));
        assertEquals("v", runner.durableExecuteAsync(call));
        assertEquals(3, call.calls.get());
        assertEquals(0, call.reconciles.get());
        assertNull(runner.getCurrentCallResultFields());
    }

    @Test
    void recordedNullReplaysAsNullWithoutCallOrReconcilerOrPersist() throws Exception {
        CountingCall<String> call = new CountingCall<>("a", String.class, () -> null, () -> "r");
        assertNull(fresh().durableExecute(call));
        int persistedBefore = persister.count();
        RunnerContextImpl runner = recovered();
        assertNull(runner.durableExecute(call));
        assertEquals(1, call.calls.get());
        assertEquals(0, call.reconciles.get());
        assertEquals(persistedBefore, persister.count());
        assertNull(runner.getCurrentCallResultFields(), "the index moved past the replayed slot");
    }

    @Test
    void recordedFailureReplaysWithSameClassAndMessage() throws Exception {
        CountingCall<Integer> call = TestCalls.failing("a", Integer.class, new UnsupportedOperationException("nope"));
        assertThrows(UnsupportedOperationException.class, () -> fresh().durableExecute(call));
        UnsupportedOperationException replayed = assertThrows(UnsupportedOperationException.class, () -> recovered().durableExecute(call));
        assertEquals("nope", replayed.getMessage());
        assertEquals(1, call.calls.get());
    }

    /** An exception class without a (String) constructor comes back as a RuntimeException naming it. */
    static final class NoMessageConstructor extends Exception {
        NoMessageConstructor(int code) {
            super("code " + code);
        }
    }

    @Test
    void failureWithoutStringConstructorReplaysAsRuntimeExceptionNamingTheClass() {
        CountingCall<String> call = TestCalls.failing("a", String.class, new NoMessageConstructor(7));
        assertThrows(NoMessageConstructor.class, () -> fresh().durableExecute(call));
        RuntimeException replayed = assertThrows(RuntimeException.class, () -> recovered().durableExecute(call));
        assertEquals(NoMessageConstructor.class.getName() + ": code 7", replayed.getMessage());
    }

    @Test
    void toolCallsReplayIndependentlyAndSwappedOrderClearsFromFirstDifference() throws Exception {
        CountingCall<String> a = TestCalls.returning("tool-call:a", "A");
        CountingCall<String> b = TestCalls.returning("tool-call:b", "B");
        RunnerContextImpl first = fresh();
        assertEquals("A", first.durableExecute(a));
        assertEquals("B", first.durableExecute(b));

        RunnerContextImpl same = recovered();
        assertEquals("A", same.durableExecute(a));
        assertEquals("B", same.durableExecute(b));
        assertEquals(Arrays.asList(1, 1), Arrays.asList(a.calls.get(), b.calls.get()));

        RunnerContextImpl swapped = recovered();
        assertEquals("B", swapped.durableExecute(b));
        assertEquals(2, b.calls.get(), "the first slot holds a: b runs again and the tail is cleared");
        assertEquals(List.of("tool-call:b"), ids(persister.last()));
        assertEquals("A", swapped.durableExecute(a));
        assertEquals(2, a.calls.get());
        assertEquals(List.of("tool-call:b", "tool-call:a"), ids(persister.last()));
    }

    @Test
    void chatRetriesReplayInOrderByPosition() throws Exception {
        AtomicInteger attempt = new AtomicInteger();
        CountingCall<String> chat = new CountingCall<>("chat", String.class, () -> {
            int n = attempt.incrementAndGet();
            if (n < 3) {
                throw new IllegalStateException("rate limited " + n);
            }
            return "answer";
        }, null);
        RunnerContextImpl first = fresh();
        assertEquals("answer", retryChat(first, chat));
        assertEquals(3, chat.calls.get());

        List<String> seen = new java.util.ArrayList<>();
        RunnerContextImpl replay = recovered();
        for (int i = 0; i < 2; i++) {
            seen.add(assertThrows(IllegalStateException.class, () -> replay.durableExecute(chat)).getMessage());
        }
        seen.add(replay.durableExecute(chat));
        assertEquals(List.of("rate limited 1", "rate limited 2", "answer"), seen);
        assertEquals(3, chat.calls.get(), "no attempt ran again");
    }

    private static String retryChat(RunnerContextImpl runner, CountingCall<String> chat) throws Exception {
        while (true) {
            try {
                return runner.durableExecute(chat);
            } catch (IllegalStateException e) {
                // the agent retries the chat
            }
        }
    }

    @Test
    void asyncCallRunsOnExecutorAndReplays() throws Exception {
        CountingCall<String> call = new CountingCall<>("a", String.class, () -> Thread.currentThread().getName(), null);
        String ranOn = fresh().durableExecuteAsync(call);
        assertTrue(ranOn.startsWith("pool-"), ranOn);
        assertEquals(ranOn, recovered().durableExecuteAsync(call));
        assertEquals(1, call.calls.get());
    }

    @Test
    void cancelledCallIsNotRecorded() {
        CountingCall<String> call = new CountingCall<>("a", String.class, () -> { throw new CancellationException("stop"); }, () -> "r");
        RunnerContextImpl runner = fresh();
        assertThrows(CancellationException.class, () -> runner.durableExecute(call));
        assertEquals(List.of(CallResult.pending("a")), persister.last().getCallResults(), "stays pending for the reconciler");
        assertEquals(1, persister.count());
    }

    @Test
    void interruptedWaitIsNotRecordedAndKeepsTheInterruptFlag() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        CountingCall<String> call = new CountingCall<>("a", String.class, () -> { never.await(); return "x"; }, null);
        RunnerContextImpl runner = fresh();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> runner.durableExecuteAsync(call));
        assertTrue(Thread.interrupted());
        assertEquals(0, persister.count());
    }

    @Test
    void complexResultsRoundTripThroughJson() throws Exception {
        CountingCall<Map> call = new CountingCall<>("tool-call:search", Map.class, () -> Map.of("hits", List.of("x", "é😀")), null);
        Map<?, ?> first = fresh().durableExecute(call);
        assertEquals(first, recovered().durableExecute(call));
        assertEquals(JSON.readTree("{\"hits\":[\"x\",\"é😀\"]}"),
                JSON.readTree(persister.last().getCallResults().get(0).getResultPayload()));
    }

    @Test
    void undecodableRecordedResultIsAnErrorNotAMiss() {
        ActionState state = new ActionState();
        state.addCallResult(new CallResult("a", json("{not json"), null));
        RunnerContextImpl runner = new RunnerContextImpl(new DurableExecutionContext(state, persister));
        CountingCall<Integer> call = new CountingCall<>("a", Integer.class, () -> 1, null);
        JournalException e = assertThrows(JournalException.class, () -> runner.durableExecute(call));
        assertEquals(JournalException.Code.PAYLOAD_UNREADABLE, e.getCode());
        assertEquals(0, call.calls.get());
    }

    @Test
    void batchReservesOnceFinalizesInInputOrderAndReplays() throws Exception {
        CountDownLatch bothStarted = new CountDownLatch(2);
        CountingCall<String> slow = new CountingCall<>("tool-call:1", String.class, () -> {
            bothStarted.countDown();
            assertTrue(bothStarted.await(10, TimeUnit.SECONDS), "calls of a batch run in parallel");
            return "one";
        }, null);
        CountingCall<String> fast = new CountingCall<>("tool-call:2", String.class, () -> {
            bothStarted.countDown();
            assertTrue(bothStarted.await(10, TimeUnit.SECONDS));
            return "two";
        }, null);
        RunnerContextImpl runner = fresh();
        assertEquals(List.of("one", "two"), runner.durableExecuteAll(List.of(slow, fast)));
        assertEquals(List.of(CallResult.pending("tool-call:1"), CallResult.pending("tool-call:2")), persister.persisted.get(0).getCallResults());
        assertEquals(3, persister.count(), "one reservation, one finalize per call");
        assertNull(runner.getCurrentCallResultFields());

        assertEquals(List.of("one", "two"), recovered().durableExecuteAll(List.of(slow, fast)));
        assertEquals(Arrays.asList(1, 1), Arrays.asList(slow.calls.get(), fast.calls.get()));
    }

    @Test
    void batchRunsOnlyTheCallsLeftPending() throws Exception {
        ActionState state = new ActionState();
        state.addCallResult(new CallResult("x", json("\"done\""), null));
        state.addCallResult(CallResult.pending("y"));
        RunnerContextImpl runner = new RunnerContextImpl(new DurableExecutionContext(state, persister), pool);
        CountingCall<String> x = TestCalls.returning("x", "again");
        CountingCall<String> y = TestCalls.returning("y", "now");
        assertEquals(List.of("done", "now"), runner.durableExecuteAll(List.of(x, y)));
        assertEquals(Arrays.asList(0, 1), Arrays.asList(x.calls.get(), y.calls.get()));
        assertEquals(1, persister.count());
    }

    @Test
    void callableFromLambdasRecordsReplaysAndReconciles() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        DurableCallable<Integer> call = DurableCallable.of("tool-call:count", Integer.class, runs::incrementAndGet);
        assertEquals(1, fresh().durableExecute(call));
        assertEquals(1, recovered().durableExecute(call));
        assertEquals(1, runs.get());
        assertNull(call.reconciler());

        ActionState pending = new ActionState();
        pending.addCallResult(CallResult.pending("tool-call:charge"));
        DurableCallable<String> charge = DurableCallable.of("tool-call:charge", String.class, () -> "charged again", () -> "already charged");
        assertEquals("already charged", new RunnerContextImpl(new DurableExecutionContext(pending, null)).durableExecute(charge));

        assertThrows(NullPointerException.class, () -> DurableCallable.of(null, String.class, () -> "x"));
        assertThrows(NullPointerException.class, () -> DurableCallable.of("a", null, () -> "x"));
        assertThrows(NullPointerException.class, () -> DurableCallable.of("a", String.class, null));
    }

    private static List<String> ids(ActionState state) {
        List<String> ids = new java.util.ArrayList<>();
        for (CallResult result : state.getCallResults()) {
            ids.add(result.getFunctionId());
        }
        return ids;
    }
}
