package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.TestCalls.CountingPersister;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A durable call inside another durable call's body is refused: the journal matches calls by
 * position and records them as they complete, so a nested call would land before the call that
 * contains it and a replay could not find either. The refusal is an exception of the outer body,
 * recorded as its outcome like any other, so the first run and every replay agree.
 */
class NestedDurableCallTest {
    private final CountingPersister persister = new CountingPersister();
    private final ExecutorService pool = Executors.newFixedThreadPool(4);

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    private RunnerContextImpl runner(ActionState state) {
        return new RunnerContextImpl(new DurableExecutionContext(state, persister), pool);
    }

    /** An action whose second call makes a durable call inside its body. */
    private static final class Action {
        final CountingCall<String> first = TestCalls.returning("tool-call:first", "1");
        final CountingCall<String> inner = TestCalls.returning("tool-call:inner", "inner");
        final CountingCall<String> outer;
        final RunnerContextImpl[] current = new RunnerContextImpl[1];

        Action() {
            outer = new CountingCall<>("tool-call:outer", String.class, () -> "outer+" + current[0].durableExecute(inner), null);
        }

        String run(RunnerContextImpl runner) throws Exception {
            current[0] = runner;
            return runner.durableExecute(first) + runner.durableExecute(outer);
        }
    }

    @Test
    void aNestedCallIsRefusedAndTheRefusalIsTheOuterCallsRecordedOutcome() throws Exception {
        Action action = new Action();
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> action.run(runner(new ActionState())));
        assertTrue(refused.getMessage().contains("durable call 'tool-call:inner' was started inside the body of durable call 'tool-call:outer'"),
                refused.getMessage());
        assertTrue(refused.getMessage().contains("nested durable calls are not supported"), refused.getMessage());
        assertEquals(0, action.inner.calls.get(), "the inner call never ran");
        assertEquals(1, action.outer.calls.get());

        ActionState recorded = persister.last();
        assertEquals(Arrays.asList("tool-call:first", "tool-call:outer"), ids(recorded), "nothing recorded for the inner call");
        assertTrue(recorded.getCallResults().get(1).isFailure(), "the outer call failed with the refusal");

        IllegalStateException replayed = assertThrows(IllegalStateException.class, () -> action.run(runner(recorded)));
        assertEquals(refused.getMessage(), replayed.getMessage(), "the replay rethrows the recorded refusal");
        assertEquals(1, action.first.calls.get(), "the first call replayed");
        assertEquals(1, action.outer.calls.get(), "the outer body did not run again");
        assertEquals(0, action.inner.calls.get());
        assertEquals(Arrays.asList("tool-call:first", "tool-call:outer"), ids(persister.last()), "the replay cut nothing");
    }

    @Test
    void aCallAfterTheRefusedOneRunsNormally() throws Exception {
        RunnerContextImpl runner = runner(new ActionState());
        CountingCall<String> inner = TestCalls.returning("inner", "i");
        CountingCall<String> outer = new CountingCall<>("outer", String.class, () -> {
            try {
                return runner.durableExecute(inner);
            } catch (IllegalStateException refused) {
                return "caught";
            }
        }, null);
        assertEquals("caught", runner.durableExecute(outer));
        assertEquals("i", runner.durableExecute(inner), "nothing is left in progress");
        assertEquals(Arrays.asList("outer", "inner"), ids(persister.last()));
    }

    @Test
    void aBodyEndingInAnErrorLeavesNoCallInProgress() throws Exception {
        RunnerContextImpl runner = runner(new ActionState());
        CountingCall<String> broken = new CountingCall<>("broken", String.class, () -> {
            throw new AssertionError("not an Exception");
        }, null);
        assertThrows(AssertionError.class, () -> runner.durableExecute(broken));
        assertEquals("v", runner.durableExecute(TestCalls.returning("next", "v")), "the next call is not taken for a nested one");
    }

    @Test
    void nestingIsRefusedInAsyncBodiesReconcilersAndBatches() throws Exception {
        RunnerContextImpl runner = runner(new ActionState());
        CountingCall<String> inner = TestCalls.returning("inner", "i");
        CountingCall<String> inAsync = new CountingCall<>("async", String.class, () -> runner.durableExecute(inner), null);
        IllegalStateException async = assertThrows(IllegalStateException.class, () -> runner.durableExecuteAsync(inAsync));
        assertTrue(async.getMessage().startsWith("durable call 'inner' was started inside the body of durable call 'async'"),
                "a call from the executor thread running the body is nested: " + async.getMessage());

        CountingCall<Object> batchInCall = new CountingCall<>("batch-in-call", Object.class,
                () -> runner.durableExecuteAll(List.of(inner)), null);
        IllegalStateException batch = assertThrows(IllegalStateException.class, () -> runner.durableExecute(batchInCall));
        assertTrue(batch.getMessage().startsWith("a durableExecuteAll batch of 1 calls was started inside the body of durable call 'batch-in-call'"),
                batch.getMessage());

        CountingCall<String> inBatch = new CountingCall<>("in-batch", String.class, () -> runner.durableExecute(inner), null);
        IllegalStateException fromBatch = assertThrows(IllegalStateException.class,
                () -> runner.durableExecuteAll(List.of(TestCalls.returning("sibling", "s"), inBatch)));
        assertTrue(fromBatch.getMessage().contains("inside the body of a durableExecuteAll batch of 2 calls"), fromBatch.getMessage());
        assertEquals(0, inner.calls.get());

        ActionState pending = new ActionState();
        pending.addCallResult(CallResult.pending("reconciled"));
        RunnerContextImpl overPending = runner(pending);
        CountingCall<String> viaReconciler = new CountingCall<>("reconciled", String.class, () -> "v", () -> overPending.durableExecute(inner));
        assertThrows(IllegalStateException.class, () -> overPending.durableExecute(viaReconciler));
        assertEquals(1, viaReconciler.reconciles.get());
        assertEquals(0, viaReconciler.calls.get());
        assertEquals(0, inner.calls.get(), "no nested call ever ran");
    }

    @Test
    void aCallFromAnotherThreadWhileABodyRunsIsRefusedAsConcurrentNotAsNested() throws Exception {
        RunnerContextImpl runner = runner(new ActionState());
        CountDownLatch inBody = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CountingCall<String> slow = new CountingCall<>("tool-call:slow", String.class, () -> {
            inBody.countDown();
            finish.await();
            return "slow";
        }, null);
        Future<String> running = pool.submit(() -> runner.durableExecute(slow));
        inBody.await();
        CountingCall<String> other = TestCalls.returning("tool-call:other", "other");
        IllegalStateException refused;
        try {
            refused = assertThrows(IllegalStateException.class, () -> runner.durableExecute(other));
        } finally {
            finish.countDown();
        }
        assertEquals("slow", running.get());
        String message = refused.getMessage();
        assertTrue(message.startsWith("durable call 'tool-call:other' was started on thread '" + Thread.currentThread().getName()
                + "' while durable call 'tool-call:slow' runs on thread '"), message);
        assertTrue(message.contains("concurrent durable calls on one DurableExecutionContext are not supported"), message);
        assertTrue(message.contains("mailbox thread"), "it names the contract: " + message);
        assertTrue(!message.contains("inside the body"), "it is not called nesting: " + message);
        assertEquals(0, other.calls.get(), "the refused call did not run");
        assertEquals("other", runner.durableExecute(other), "once the body returned, the call is taken");
        assertEquals(Arrays.asList("tool-call:slow", "tool-call:other"), ids(persister.last()));
    }

    private static List<String> ids(ActionState state) {
        return state.getCallResults().stream().map(CallResult::getFunctionId).collect(Collectors.toList());
    }
}
