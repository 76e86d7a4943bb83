package io.durablejournal.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.durablejournal.ActionState;
import io.durablejournal.CallResult;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code durableExecuteAsync} runs the call on the executor, but a reconciler on the caller's
 * thread (as Flink Agents does): it inspects what an interrupted call left behind, and may rely on
 * what the action's thread holds.
 */
class ReconcilerThreadTest {
    private final ExecutorService pool = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void asyncCallRunsOnTheExecutorAndItsReconcilerOnTheCallersThread() throws Exception {
        AtomicReference<Thread> callThread = new AtomicReference<>();
        AtomicReference<Thread> reconcilerThread = new AtomicReference<>();
        DurableCallable<String> call = DurableCallable.of("tool-call:send", String.class,
                () -> {
                    callThread.set(Thread.currentThread());
                    return "sent";
                },
                () -> {
                    reconcilerThread.set(Thread.currentThread());
                    return "found sent";
                });

        try (DurableExecutionContext journal = new DurableExecutionContext(new ActionState(), null)) {
            assertEquals("sent", new RunnerContextImpl(journal, pool).durableExecuteAsync(call));
        }
        assertNotSame(Thread.currentThread(), callThread.get(), "the call runs on the executor");

        ActionState interrupted = new ActionState();
        interrupted.addCallResult(CallResult.pending("tool-call:send"));
        try (DurableExecutionContext journal = new DurableExecutionContext(interrupted, null)) {
            assertEquals("found sent", new RunnerContextImpl(journal, pool).durableExecuteAsync(call));
            assertEquals(CallResult.Status.SUCCEEDED, journal.getActionState().getCallResults().get(0).getStatus());
        }
        assertSame(Thread.currentThread(), reconcilerThread.get(), "the reconciler runs on the caller's thread");
    }
}
