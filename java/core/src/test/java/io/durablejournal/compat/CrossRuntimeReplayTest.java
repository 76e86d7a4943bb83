package io.durablejournal.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.durablejournal.ActionStateSerde;
import io.durablejournal.CallResult;
import io.durablejournal.CountingCall;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each runtime replays the other's journal: an action runs on one runtime (Flink Agents 0.3.1's own
 * {@code RunnerContextImpl}, or ours) until the job dies in its last call, the state goes through
 * that runtime's {@code ActionStateSerde}, the other runtime loads it and runs the same action
 * again. Nothing recorded runs again, the interrupted call is reconciled, and every call answers
 * what the replaying runtime answers over a journal it recorded itself.
 */
class CrossRuntimeReplayTest {
    static final Instant INSTANT = Instant.parse("2024-05-06T07:08:09.123456789Z");
    static final LocalDate DATE = LocalDate.of(2024, 2, 29);

    /** The action both runtimes run: one call of each kind a journal carries. */
    static final class Action {
        final CountingCall<String> search = CountingCall.of("tool-call:search", String.class, () -> "sunny");
        final CountingCall<String> lookup = CountingCall.of("tool-call:lookup", String.class, () -> null);
        final CountingCall<String> charge = CountingCall.of("tool-call:charge", String.class, () -> {
            throw new IllegalArgumentException("card declined");
        });
        final CountingCall<Instant> clock = CountingCall.of("tool-call:clock", Instant.class, () -> INSTANT);
        final CountingCall<LocalDate> due = CountingCall.of("tool-call:due-date", LocalDate.class, () -> DATE);
        final CountingCall<String> book = new CountingCall<>("tool-call:book", String.class, () -> "booking-7", () -> "booking-reconciled");
        final CountingCall<String> email = new CountingCall<>("tool-call:send-email", String.class,
                () -> "message-id-42", () -> "message-id-42 (reconciled)");
        final CountingCall<String> after = CountingCall.of("tool-call:after-crash", String.class, () -> "done");

        List<CountingCall<?>> calls() {
            return Arrays.asList(search, lookup, charge, clock, due, book, email, after);
        }

        /** Runs the calls in order: each outcome is its value or "threw Class: message"; a crash ends the run. */
        List<Object> run(JournalRuntime runtime) {
            List<Object> outcomes = new ArrayList<>();
            for (CountingCall<?> call : calls()) {
                try {
                    outcomes.add(runtime.durableExecute(call));
                } catch (CountingCall.Crash crash) {
                    outcomes.add("crashed");
                    break;
                } catch (Exception e) {
                    outcomes.add("threw " + e.getClass().getName() + ": " + e.getMessage());
                }
            }
            return outcomes;
        }

        /** The first run: the job dies while the e-mail is sent, after the call ran. */
        byte[] recordUntilCrash(JournalRuntime.Factory runtime) throws Exception {
            email.crashing.set(true);
            try (JournalRuntime recorder = runtime.open(null)) {
                assertEquals(Arrays.asList("sunny", null, "threw java.lang.IllegalArgumentException: card declined",
                        INSTANT, DATE, "booking-7", "crashed"), run(recorder));
                return recorder.persistedJson();
            } finally {
                email.crashing.set(false);
            }
        }

        /** Every call ran exactly once over both runs, and only the interrupted one was reconciled. */
        void assertNothingRecordedRanAgain() {
            for (CountingCall<?> call : calls()) {
                assertEquals(1, call.calls.get(), call.id + " ran");
                assertEquals(call == email ? 1 : 0, call.reconciles.get(), call.id + " reconciled");
            }
        }
    }

    @Test
    void flinkAgentsJournalReplaysHere() throws Exception {
        assertEquals(Arrays.asList("sunny", null, "threw java.lang.IllegalArgumentException: card declined",
                INSTANT, DATE, "booking-7", "message-id-42 (reconciled)", "done"),
                replayAcross(JournalRuntime.FlinkAgents::new, JournalRuntime.Ours::new));
    }

    /**
     * Flink Agents 0.3.1 matches a slot on {@code (functionId, argsDigest)} with {@code argsDigest =
     * ""} for Java calls, so this needs our slots to carry {@code "argsDigest": ""}.
     */
    @Test
    void ourJournalReplaysInFlinkAgents() throws Exception {
        // Flink Agents 0.3.1 itself throws NullPointerException when it replays a recorded null
        // (Optional.of(null)), and rethrows a recorded failure as a RuntimeException naming the class.
        assertEquals(Arrays.asList("sunny", "threw java.lang.NullPointerException: null",
                "threw java.lang.RuntimeException: java.lang.IllegalArgumentException: card declined",
                INSTANT, DATE, "booking-7", "message-id-42 (reconciled)", "done"),
                replayAcross(JournalRuntime.Ours::new, JournalRuntime.FlinkAgents::new));
    }

    /**
     * Records the action with one runtime until the crash, then re-runs it with the other over that
     * journal: both read the journal alike, nothing recorded runs again, and the answers are those
     * the replaying runtime gives over a journal it recorded itself. Returns those answers.
     */
    private static List<Object> replayAcross(JournalRuntime.Factory recorder, JournalRuntime.Factory replayer) throws Exception {
        Action action = new Action();
        byte[] journal = action.recordUntilCrash(recorder);
        assertBothRuntimesReadTheSameJournal(journal);
        List<Object> replayed;
        try (JournalRuntime runtime = replayer.open(journal)) {
            replayed = action.run(runtime);
        }
        action.assertNothingRecordedRanAgain();
        assertEquals(replayOfOwnJournal(replayer), replayed);
        return replayed;
    }

    /** What a runtime answers when it re-runs the action over a journal it recorded itself. */
    private static List<Object> replayOfOwnJournal(JournalRuntime.Factory runtime) throws Exception {
        Action action = new Action();
        byte[] own = action.recordUntilCrash(runtime);
        try (JournalRuntime replayer = runtime.open(own)) {
            List<Object> replayed = action.run(replayer);
            action.assertNothingRecordedRanAgain();
            return replayed;
        }
    }

    /** Both ActionStateSerdes read every slot of the JSON the same, with Flink Agents' argsDigest "" for Java calls. */
    static void assertBothRuntimesReadTheSameJournal(byte[] json) {
        List<CallResult> ours = ActionStateSerde.deserialize(json).getCallResults();
        List<org.apache.flink.agents.runtime.actionstate.CallResult> theirs =
                org.apache.flink.agents.runtime.actionstate.ActionStateSerde.deserialize(json).getCallResults();
        assertEquals(theirs.size(), ours.size(), "slots");
        for (int i = 0; i < ours.size(); i++) {
            CallResult our = ours.get(i);
            org.apache.flink.agents.runtime.actionstate.CallResult their = theirs.get(i);
            String slot = "slot " + i + " (" + our.getFunctionId() + ")";
            assertEquals(their.getFunctionId(), our.getFunctionId(), slot);
            assertEquals("", their.getArgsDigest(), slot + ": argsDigest as Flink Agents reads it");
            assertEquals(their.isPending() ? CallResult.Status.PENDING
                    : their.isFailure() ? CallResult.Status.FAILED : CallResult.Status.SUCCEEDED, our.getStatus(), slot);
            assertArrayEquals(their.getResultPayload(), our.getResultPayload(), slot + " result");
            assertArrayEquals(their.getExceptionPayload(), our.getExceptionPayload(), slot + " exception");
        }
    }
}
