package io.durablejournal;

import static io.durablejournal.TestCalls.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.TestCalls.CountingPersister;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A context created over an ActionState answers recorded hits from that state and opens its
 * native journal at the first call that needs it: the hand-over keeps the index, the journal and
 * every refusal exactly as if the journal had decided every call ({@code ReplayTableTest} runs
 * every row of spec §2.4 both ways).
 */
class RecordedReplayTest {
    private final CountingPersister persister = new CountingPersister();

    private static ActionState recorded(int calls) {
        ActionState state = new ActionState();
        for (int i = 0; i < calls; i++) {
            state.addCallResult(new CallResult("call-" + i, json("\"r" + i + "\""), null));
        }
        return state;
    }

    @Test
    void aNewCallAfterRecordedHitsIsJournaledAfterThem() throws Exception {
        try (DurableExecutionContext journal = new DurableExecutionContext(recorded(3), persister)) {
            RunnerContextImpl runner = new RunnerContextImpl(journal);
            for (int i = 0; i < 3; i++) {
                assertEquals("r" + i, runner.durableExecute(TestCalls.returning("call-" + i, "fresh")));
            }
            assertEquals(3, journal.getCurrentCallIndex());
            CountingCall<String> next = TestCalls.returning("call-3", "new");
            assertEquals("new", runner.durableExecute(next));
            assertEquals(1, next.calls.get());
            assertEquals(4, journal.getCurrentCallIndex());
            assertEquals(3, journal.getReplayedCallCount());
            ActionState persisted = persister.last();
            assertEquals(4, persisted.getCallResults().size(), "the recorded slots stay, the new one follows them");
            assertEquals("call-2", persisted.getCallResults().get(2).getFunctionId());
            assertEquals("\"new\"", new String(persisted.getCallResults().get(3).getResultPayload(), "UTF-8"));
        }
    }

    @Test
    void aDifferentCallAfterRecordedHitsCutsTheJournalThere() throws Exception {
        try (DurableExecutionContext journal = new DurableExecutionContext(recorded(4), persister)) {
            RunnerContextImpl runner = new RunnerContextImpl(journal);
            runner.durableExecute(TestCalls.returning("call-0", "fresh"));
            runner.durableExecute(TestCalls.returning("call-1", "fresh"));
            CountingCall<String> changed = TestCalls.returning("changed", "new");
            assertEquals("new", runner.durableExecute(changed));
            assertEquals(1, changed.calls.get());
            List<CallResult> slots = journal.getActionState().getCallResults();
            assertEquals(3, slots.size());
            assertEquals("changed", slots.get(2).getFunctionId());
        }
    }

    @Test
    void theContextWorksOnTheStateAsItWasWhenCreated() throws Exception {
        ActionState state = recorded(1);
        try (DurableExecutionContext journal = new DurableExecutionContext(state, persister)) {
            state.addCallResult(new CallResult("added-later", json("1"), null));
            RunnerContextImpl runner = new RunnerContextImpl(journal);
            assertEquals("r0", runner.durableExecute(TestCalls.returning("call-0", "fresh")));
            CountingCall<String> later = TestCalls.returning("added-later", "ran");
            assertEquals("ran", runner.durableExecute(later), "a slot added after creation is not in the journal");
            assertEquals(1, later.calls.get());
        }
    }

    @Test
    void payloadArraysChangedAfterCreationDoNotReachTheJournal() throws Exception {
        byte[] given = json("\"recorded\"");
        byte[] failure = Payloads.encodeFailure(new IllegalArgumentException("recorded failure"));
        CallResult succeeded = new CallResult("call-0", given, null);
        CallResult failed = new CallResult("call-1", null, failure);
        ActionState state = new ActionState();
        state.addCallResult(succeeded);
        state.addCallResult(failed);
        try (DurableExecutionContext journal = new DurableExecutionContext(state, persister)) {
            // Every array a caller holds: the ones it built the slots from, and the ones it read back.
            for (byte[] held : List.of(given, failure, succeeded.getResultPayload(), failed.getExceptionPayload())) {
                java.util.Arrays.fill(held, (byte) '0');
            }
            RunnerContextImpl runner = new RunnerContextImpl(journal);
            assertEquals("recorded", runner.durableExecute(TestCalls.returning("call-0", "ran")));
            IllegalArgumentException replayed = assertThrows(IllegalArgumentException.class,
                    () -> runner.durableExecute(TestCalls.returning("call-1", "ran")));
            assertEquals("recorded failure", replayed.getMessage());
            assertEquals(0, journal.getExecutedCallCount());
        }
        assertEquals("\"recorded\"", new String(succeeded.getResultPayload(), java.nio.charset.StandardCharsets.UTF_8),
                "the slot itself kept its payload");
    }

    @Test
    void aClosedContextRefusesEveryCallWhetherItsJournalOpenedOrNot() {
        DurableExecutionContext unopened = new DurableExecutionContext(recorded(2), persister);
        unopened.close();
        unopened.close();
        RunnerContextImpl runner = new RunnerContextImpl(unopened);
        assertThrows(IllegalStateException.class, () -> runner.durableExecute(TestCalls.returning("call-0", "x")));
        assertThrows(IllegalStateException.class, unopened::getCurrentCallIndex);
        assertThrows(IllegalStateException.class, unopened::size);
        assertThrows(IllegalStateException.class, unopened::getActionState);

        DurableExecutionContext opened = new DurableExecutionContext(recorded(2), persister);
        assertEquals(2, opened.size());
        opened.close();
        assertThrows(IllegalStateException.class, () -> new RunnerContextImpl(opened).durableExecute(TestCalls.returning("call-0", "x")));
        assertEquals(0, persister.count());
    }

    @Test
    void aCallIdThatIsNotUnicodeIsRefusedEvenWhenTheRecordHoldsIt() {
        ActionState state = new ActionState();
        state.addCallResult(new CallResult("lone-\uD83D", json("1"), null));
        try (DurableExecutionContext journal = new DurableExecutionContext(state, persister)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new RunnerContextImpl(journal).durableExecute(DurableCallable.of("lone-\uD83D", Integer.class, () -> 2)));
            assertTrue(e.getMessage().contains("lone surrogate"), e.getMessage());
        }
    }

    @Test
    void slotsWithoutAnExplicitStatusAreLeftToTheJournal() throws Exception {
        // A legacy slot (no status field) is SUCCEEDED or FAILED by its payloads; the core infers it.
        ActionState state = ActionStateSerde.deserialize(("{\"callResults\":[{\"functionId\":\"legacy\",\"argsDigest\":\"\","
                + "\"resultPayload\":\"" + java.util.Base64.getEncoder().encodeToString(json("7")) + "\"}]}").getBytes("UTF-8"));
        try (DurableExecutionContext journal = new DurableExecutionContext(state, persister)) {
            CountingCall<Integer> call = new CountingCall<>("legacy", Integer.class, () -> 8, null);
            assertEquals(7, new RunnerContextImpl(journal).durableExecute(call));
            assertEquals(0, call.calls.get());
            assertEquals(1, journal.getReplayedCallCount());
        }
    }

    /**
     * One thread replays while another opens the journal in the middle: every call is a hit
     * either way, and the index ends past all of them.
     */
    @Test
    void theJournalOpeningOnAnotherThreadMidReplayLosesNoHit() throws Exception {
        int calls = 2000;
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (DurableExecutionContext journal = new DurableExecutionContext(recorded(calls), persister)) {
            RunnerContextImpl runner = new RunnerContextImpl(journal);
            CountDownLatch halfway = new CountDownLatch(1);
            Future<Integer> opened = other.submit(() -> {
                halfway.await();
                return journal.size();
            });
            List<CountingCall<String>> made = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                if (i == calls / 2) {
                    halfway.countDown();
                }
                CountingCall<String> call = TestCalls.returning("call-" + i, "fresh");
                made.add(call);
                assertEquals("r" + i, runner.durableExecute(call));
            }
            assertEquals(calls, opened.get().intValue());
            assertEquals(calls, journal.getCurrentCallIndex());
            assertEquals(calls, journal.getReplayedCallCount());
            for (CountingCall<String> call : made) {
                assertEquals(0, call.calls.get());
            }
        } finally {
            other.shutdownNow();
        }
        assertEquals(0, persister.count());
    }
}
