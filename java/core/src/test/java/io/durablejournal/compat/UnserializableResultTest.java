package io.durablejournal.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.CallResult;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalException;
import io.durablejournal.ResultNotSerializableException;
import io.durablejournal.RunnerContextImpl;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A call whose result Jackson cannot write has still run: its slot is recorded as that failure
 * (never left PENDING or absent), the error says so, and a re-run replays it instead of running
 * the side effect again. Same on the plain, the reconcilable and the batch path.
 */
class UnserializableResultTest {
    /** Jackson refuses a bean without properties (FAIL_ON_EMPTY_BEANS). */
    public static final class Opaque {}

    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final List<ActionState> persisted = new ArrayList<>();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    private ActionState lastPersisted() {
        return persisted.get(persisted.size() - 1);
    }

    @Test
    void plainCallIsRecordedAsTheFailureAndReplaysIt() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        DurableCallable<Opaque> call = DurableCallable.of("tool-call:open", Opaque.class, () -> {
            runs.incrementAndGet();
            return new Opaque();
        });
        assertRecordedAsFailureAndReplayed(call, runs, null);
    }

    @Test
    void reconcilableCallDoesNotStayPending() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger reconciles = new AtomicInteger();
        DurableCallable<Opaque> call = DurableCallable.of("tool-call:open", Opaque.class, () -> {
            runs.incrementAndGet();
            return new Opaque();
        }, () -> {
            reconciles.incrementAndGet();
            return new Opaque();
        });
        assertRecordedAsFailureAndReplayed(call, runs, reconciles);
    }

    private void assertRecordedAsFailureAndReplayed(DurableCallable<Opaque> call, AtomicInteger runs, AtomicInteger reconciles)
            throws Exception {
        ResultNotSerializableException first;
        try (DurableExecutionContext journal = new DurableExecutionContext(new ActionState(), persisted::add)) {
            first = assertThrows(ResultNotSerializableException.class, () -> new RunnerContextImpl(journal).durableExecute(call));
            assertEquals(lastPersisted(), journal.getActionState(), "what is persisted is the journal");
        }
        assertEquals(JournalException.Code.INVALID_ARGUMENT, first.getCode());
        assertTrue(first.getMessage().contains("'tool-call:open'") && first.getMessage().contains(Opaque.class.getName()),
                first.getMessage());
        CallResult slot = lastPersisted().getCallResults().get(0);
        assertEquals(CallResult.Status.FAILED, slot.getStatus());

        try (DurableExecutionContext journal = new DurableExecutionContext(lastPersisted(), persisted::add)) {
            ResultNotSerializableException replayed = assertThrows(ResultNotSerializableException.class,
                    () -> new RunnerContextImpl(journal).durableExecute(call));
            assertEquals(first.getMessage(), replayed.getMessage());
            assertEquals(1, journal.getReplayedCallCount());
        }
        assertEquals(1, runs.get());
        if (reconciles != null) {
            assertEquals(0, reconciles.get());
        }
    }

    @Test
    void batchSlotIsRecordedAsTheFailureAndTheOthersKeepTheirResults() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        List<DurableCallable<?>> batch = Arrays.asList(
                DurableCallable.of("tool-call:a", String.class, () -> {
                    runs.incrementAndGet();
                    return "a";
                }),
                DurableCallable.of("tool-call:open", Opaque.class, () -> {
                    runs.incrementAndGet();
                    return new Opaque();
                }));
        try (DurableExecutionContext journal = new DurableExecutionContext(new ActionState(), persisted::add)) {
            assertThrows(ResultNotSerializableException.class, () -> new RunnerContextImpl(journal, pool).durableExecuteAll(batch));
        }
        List<CallResult> slots = lastPersisted().getCallResults();
        assertEquals(CallResult.Status.SUCCEEDED, slots.get(0).getStatus());
        assertEquals(CallResult.Status.FAILED, slots.get(1).getStatus());

        try (DurableExecutionContext journal = new DurableExecutionContext(lastPersisted(), persisted::add)) {
            assertThrows(ResultNotSerializableException.class, () -> new RunnerContextImpl(journal, pool).durableExecuteAll(batch));
        }
        assertEquals(2, runs.get(), "each call ran once");
    }
}
