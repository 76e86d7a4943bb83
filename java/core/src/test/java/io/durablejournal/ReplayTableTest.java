package io.durablejournal;

import static io.durablejournal.TestCalls.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.durablejournal.TestCalls.CountingPersister;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every row of spec §2.4 (and so §2.3) on both paths, with the persist counts of the issue. */
class ReplayTableTest {
    private static final byte[] FAILURE = json("{\"exceptionClass\":\"java.lang.IllegalArgumentException\",\"message\":\"recorded boom\"}");

    private final CountingPersister persister = new CountingPersister();

    private RunnerContextImpl runnerOver(CallResult... slots) {
        ActionState state = new ActionState();
        for (CallResult slot : slots) {
            state.addCallResult(slot);
        }
        return new RunnerContextImpl(context(state, persister));
    }

    /**
     * The context under test: created over the state, so recorded hits are answered from it
     * until a call needs the native journal. {@link OpenedJournalTest} runs every row again with the
     * journal opened before the first call.
     */
    DurableExecutionContext context(ActionState state, CountingPersister persister) {
        return new DurableExecutionContext(state, persister);
    }

    /** Every row with the native journal deciding every call. */
    static class OpenedJournalTest extends ReplayTableTest {
        @Override
        DurableExecutionContext context(ActionState state, CountingPersister persister) {
            DurableExecutionContext context = new DurableExecutionContext(state, persister);
            context.size();
            return context;
        }
    }

    private static CountingCall<String> call(boolean reconcile, String id) {
        return reconcile ? TestCalls.reconcilable(id, "fresh", "reconciled") : TestCalls.returning(id, "fresh");
    }

    @ParameterizedTest(name = "reconciler={0}")
    @ValueSource(booleans = {false, true})
    void matchingSuccessReturnsRecordedValueWithoutRunning(boolean reconcile) throws Exception {
        RunnerContextImpl runner = runnerOver(new CallResult("a", json("\"recorded\""), null));
        CountingCall<String> call = call(reconcile, "a");
        assertEquals("recorded", runner.durableExecute(call));
        assertEquals(0, call.calls.get());
        assertEquals(0, call.reconciles.get());
        assertEquals(0, persister.count());
    }

    @ParameterizedTest(name = "reconciler={0}")
    @ValueSource(booleans = {false, true})
    void matchingNullSuccessReturnsNullWithoutRunningAnything(boolean reconcile) throws Exception {
        RunnerContextImpl runner = runnerOver(new CallResult("a", null, null));
        CountingCall<String> call = call(reconcile, "a");
        assertNull(runner.durableExecute(call));
        assertEquals(0, call.calls.get());
        assertEquals(0, call.reconciles.get());
        assertEquals(0, persister.count());
        assertEquals(Arrays.asList("a", "SUCCEEDED", null, null), Arrays.asList(runner.getCallResultFieldsAt(0)));
    }

    @ParameterizedTest(name = "reconciler={0}")
    @ValueSource(booleans = {false, true})
    void matchingFailureRethrowsRecordedFailure(boolean reconcile) {
        RunnerContextImpl runner = runnerOver(new CallResult("a", null, FAILURE));
        CountingCall<String> call = call(reconcile, "a");
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> runner.durableExecute(call));
        assertEquals("recorded boom", thrown.getMessage());
        assertEquals(0, call.calls.get());
        assertEquals(0, persister.count());
    }

    @ParameterizedTest(name = "reconciler={0}")
    @ValueSource(booleans = {false, true})
    void matchingPendingExecutesOrReconcilesAndFinalizesInPlace(boolean reconcile) throws Exception {
        RunnerContextImpl runner = runnerOver(CallResult.pending("a"));
        CountingCall<String> call = call(reconcile, "a");
        assertEquals(reconcile ? "reconciled" : "fresh", runner.durableExecute(call));
        assertEquals(reconcile ? 0 : 1, call.calls.get());
        assertEquals(reconcile ? 1 : 0, call.reconciles.get());
        assertEquals(1, persister.count());
        assertEquals(List.of(new CallResult("a", json(reconcile ? "\"reconciled\"" : "\"fresh\""), null)),
                persister.last().getCallResults());
    }

    @ParameterizedTest(name = "reconciler={0}")
    @ValueSource(booleans = {false, true})
    void noSlotExecutesAndRecords(boolean reconcile) throws Exception {
        RunnerContextImpl runner = runnerOver();
        CountingCall<String> call = call(reconcile, "a");
        assertEquals("fresh", runner.durableExecute(call));
        assertEquals(1, call.calls.get());
        assertEquals(reconcile ? 2 : 1, persister.count());
        if (reconcile) {
            assertEquals(List.of(CallResult.pending("a")), persister.persisted.get(0).getCallResults());
        }
        assertEquals(List.of(new CallResult("a", json("\"fresh\""), null)), persister.last().getCallResults());
    }

    @ParameterizedTest(name = "reconciler={0}")
    @ValueSource(booleans = {false, true})
    void differentCallClearsLaterSlotsThenExecutes(boolean reconcile) throws Exception {
        RunnerContextImpl runner = runnerOver(new CallResult("other", json("1"), null), new CallResult("later", json("2"), null));
        CountingCall<String> call = call(reconcile, "a");
        assertEquals("fresh", runner.durableExecute(call));
        assertEquals(1, call.calls.get());
        assertEquals(reconcile ? 3 : 1, persister.count());
        if (reconcile) {
            assertEquals(List.of(), persister.persisted.get(0).getCallResults());
            assertEquals(List.of(CallResult.pending("a")), persister.persisted.get(1).getCallResults());
        }
        assertEquals(List.of(new CallResult("a", json("\"fresh\""), null)), persister.last().getCallResults());
    }

    @ParameterizedTest(name = "reconciler={0}")
    @ValueSource(booleans = {false, true})
    void freshFailureIsRecordedAndRethrown(boolean reconcile) {
        RunnerContextImpl runner = runnerOver();
        IllegalStateException failure = new IllegalStateException("llm down");
        CountingCall<String> call = reconcile
                ? new CountingCall<>("a", String.class, () -> { throw failure; }, () -> "unused")
                : TestCalls.failing("a", String.class, failure);
        assertEquals(failure, assertThrows(IllegalStateException.class, () -> runner.durableExecute(call)));
        CallResult recorded = persister.last().getCallResults().get(0);
        assertEquals(CallResult.Status.FAILED, recorded.getStatus());
        assertEquals(reconcile ? 2 : 1, persister.count());
    }

    @ParameterizedTest(name = "async={0}")
    @ValueSource(booleans = {false, true})
    void reconcilerFailureIsRecordedAsFailedAndRethrown(boolean async) throws Exception {
        RunnerContextImpl runner = runnerOver(CallResult.pending("a"));
        CountingCall<String> call = new CountingCall<>("a", String.class, () -> "never",
                () -> { throw new java.io.IOException("unknown outcome"); });
        java.io.IOException thrown = assertThrows(java.io.IOException.class,
                () -> { if (async) runner.durableExecuteAsync(call); else runner.durableExecute(call); });
        assertEquals("unknown outcome", thrown.getMessage());
        assertEquals(0, call.calls.get());
        assertEquals(1, persister.count());
        assertEquals(CallResult.Status.FAILED, persister.last().getCallResults().get(0).getStatus());
        // The recorded failure now replays without running anything.
        RunnerContextImpl recovered = new RunnerContextImpl(new DurableExecutionContext(persister.last(), null));
        assertEquals("unknown outcome", assertThrows(java.io.IOException.class, () -> recovered.durableExecute(call)).getMessage());
        assertEquals(Arrays.asList(0, 1), Arrays.asList(call.calls.get(), call.reconciles.get()));
    }
}
