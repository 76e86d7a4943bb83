package io.durablejournal.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.CallInterruptedException;
import io.durablejournal.CallSemantics;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.DurableCall;
import io.durablejournal.DurableCallable;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.ActionStateStores;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The operators' runner ({@link DurableActionRunner}, behind {@link DurableActionFunction} and
 * {@link DurableAsyncActionFunction}): an action's calls read their idempotency key, the same on
 * the re-run of an interrupted action, and the job's default semantics makes them at most once.
 */
class OperatorCallSemanticsTest {
    private static final String ACTION = "charge-action";

    /** One durable call that notes its key; while {@code dies} is set the process "dies" in it. */
    private static DurableActionRunner<String, String> runner(List<String> keys, AtomicInteger bodies, AtomicBoolean dies) {
        AgentAction<String, String> action = (input, ctx) -> ctx.durableExecute(DurableCallable.of("charge", String.class, () -> {
            bodies.incrementAndGet();
            keys.add(DurableCall.current().idempotencyKey());
            if (dies.get()) {
                throw new InterruptedException("the TaskManager died during the call");
            }
            return "charged " + input;
        }));
        return new DurableActionRunner<>(ACTION, action, String.class, DivergencePolicy.WARN);
    }

    @Test
    void aReRunCallReadsTheSameKeyAndByDefaultRunsAgain() throws Exception {
        List<String> keys = new ArrayList<>();
        AtomicInteger bodies = new AtomicInteger();
        try (ActionStateStore store = ActionStateStores.inMemory()) {
            DurableActionRunner<String, String> runner = runner(keys, bodies, new AtomicBoolean(true));
            assertThrows(InterruptedException.class, () -> runner.run(store, "user-1", 0, "a", new DurableActionRunner.Tally()));
            List<String> out = runner(keys, bodies, new AtomicBoolean(false)).run(store, "user-1", 0, "a", new DurableActionRunner.Tally());
            assertEquals("charged a", out.get(0));
        }
        assertEquals(2, bodies.get());
        assertEquals(keys.get(0), keys.get(1));
        assertTrue(keys.get(0).startsWith("idem:"));
        assertEquals("idem:".length() + 32, keys.get(0).length());
    }

    @Test
    void theJobsDefaultMakesTheCallAtMostOnceAndTheReRunSeesItInterrupted() throws Exception {
        List<String> keys = new ArrayList<>();
        AtomicInteger bodies = new AtomicInteger();
        try (ActionStateStore store = ActionStateStores.inMemory()) {
            DurableActionRunner<String, String> dying = runner(keys, bodies, new AtomicBoolean(true))
                    .withDefaultCallSemantics(CallSemantics.AT_MOST_ONCE);
            assertThrows(InterruptedException.class, () -> dying.run(store, "user-1", 0, "a", new DurableActionRunner.Tally()));
            DurableActionRunner<String, String> rerun = runner(keys, bodies, new AtomicBoolean(false))
                    .withDefaultCallSemantics(CallSemantics.AT_MOST_ONCE);
            CallInterruptedException e = assertThrows(CallInterruptedException.class,
                    () -> rerun.run(store, "user-1", 0, "a", new DurableActionRunner.Tally()));
            assertEquals(ACTION, e.getActionName());
            assertEquals(keys.get(0), e.getIdempotencyKey());
        }
        assertEquals(1, bodies.get(), "the body ran once");
    }
}
