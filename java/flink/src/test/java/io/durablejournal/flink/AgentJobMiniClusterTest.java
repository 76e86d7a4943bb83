package io.durablejournal.flink;

import static io.durablejournal.demo.JobSettings.CRASH;
import static io.durablejournal.demo.JobSettings.GATE;
import static io.durablejournal.demo.JobSettings.REQUESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.demo.AgentJob;
import io.durablejournal.demo.RequestSource;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.testing.Failures;
import io.durablejournal.testing.ForwardingStore;
import io.durablejournal.testing.JobTest;
import io.durablejournal.testing.MiniClusters;
import io.durablejournal.testing.RepeatedRuns;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent job on a Flink MiniCluster with checkpointing: twelve requests (users of four
 * consecutive requests each), three durable calls per request (a chat and two tool calls) whose
 * side effects are appended to a file outside Flink. The source waits for a completed checkpoint
 * before request 5, emits 5..7 with no barrier between them, and request 7 crashes once after
 * its second call. Flink restores that checkpoint: requests 5 and 6 completed after it, 7 was in
 * flight with two journaled calls.
 */
class AgentJobMiniClusterTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    /** The journaled job in {@code workDir} with no gate and no crash: it fails only if the store refuses it. */
    private static AgentJob.Settings uninterrupted(Path workDir) {
        AgentJob.Settings settings = new AgentJob.Settings(workDir);
        settings.gateAt = -1;
        settings.crashAt = -1;
        return settings;
    }

    /** The job checkpointing every 100 ms. */
    private static AgentJob.Outcome run(AgentJob.Settings settings) throws Exception {
        return AgentJob.run(settings, Duration.ofMillis(100));
    }

    @JobTest
    void withTheJournalTheJobRecoversAndEverySideEffectRunsExactlyOnce(@TempDir Path tmp) throws Exception {
        AgentJob.Settings settings = new AgentJob.Settings(tmp);
        AgentJob.Outcome outcome = run(settings);

        assertTrue(outcome.crashed, "the crash was injected");
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers, "every request answered once, from calls that ran once");
        assertEquals(REQUESTS * 3, outcome.sideEffects.size(), "every call of every request ran");
        assertEquals(Map.of(), RepeatedRuns.of(outcome.sideEffects), "no side effect ran twice");

        assertEquals(2, outcome.callsReplayed, "the chat and first tool call of " + RequestSource.requestId(CRASH) + " replayed");
        assertEquals(CRASH - GATE, outcome.actionsReemitted, "requests completed after the checkpoint were re-emitted, not re-run");
        assertEquals(1, outcome.actionsResumed, "the in-flight request resumed over its journal");

        for (int subtask = 0; subtask < settings.parallelism; subtask++) {
            Path dir = ActionStateStoreFactory.subtaskDirectory(settings.storeDir().toString(), subtask);
            try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
                assertEquals(0, store.stats().entries(), "the final checkpoint pruned every completed entry of " + dir);
            }
        }
    }

    @JobTest
    void aCrashBeforeTheFirstCheckpointReplaysTheJournalsOfTheFirstAttempt(@TempDir Path tmp) throws Exception {
        AgentJob.Settings settings = new AgentJob.Settings(tmp);
        settings.gateAt = -1;
        settings.crashAt = 2;
        // The first checkpoint is a second away; request 2 crashes within milliseconds of the start,
        // so the restart has no checkpoint to restore and re-reads the source from the beginning.
        AgentJob.Outcome outcome = AgentJob.run(settings, Duration.ofSeconds(1));

        assertTrue(outcome.crashed);
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers);
        assertEquals(0, outcome.duplicateSideEffects(), "no side effect ran twice: " + outcome.sideEffects);
        assertEquals(REQUESTS * 3, outcome.sideEffects.size());
        assertEquals(2, outcome.callsReplayed, "the first attempt's journal of request 2 replayed");
        assertEquals(1, outcome.actionsResumed);
    }

    @JobTest
    void aJobStartingWithoutACheckpointRefusesAStoreWithEntriesOfAnEarlierRun(@TempDir Path tmp) throws Exception {
        AgentJob.Settings settings = uninterrupted(tmp);
        Path subtask0 = java.nio.file.Files.createDirectories(
                ActionStateStoreFactory.subtaskDirectory(settings.storeDir().toString(), 0));
        try (NativeActionStateStore earlier = ActionStateStores.openFileStore(subtask0)) {
            ActionState completed = new ActionState();
            completed.addOutputEvent(com.fasterxml.jackson.databind.node.TextNode.valueOf("a stale answer"));
            completed.markCompleted();
            earlier.put("user-0", 0, AgentJob.ACTION_NAME, EventIdentity.rootOccurrence("user-0", 0), completed);
        }
        Exception failure = assertThrows(Exception.class, () -> run(settings));
        assertTrue(Failures.causes(failure).contains("entries of an earlier run"), Failures.causes(failure));
        try (NativeActionStateStore store = ActionStateStores.openFileStore(subtask0)) {
            assertEquals(1, store.stats().entries(), "the refusal left the earlier run's store as it was");
        }
    }

    /**
     * The same refusal for a store from a user's own factory, which the operator knows only as an
     * {@code ActionStateStore}: it asks the store how many entries it holds.
     */
    @JobTest
    void aStoreFromAUserFactoryWithEntriesOfAnEarlierRunIsRefusedToo(@TempDir Path tmp) throws Exception {
        AgentJob.Settings settings = uninterrupted(tmp);
        String base = settings.storeDir().toString();
        settings.storeFactory = new WrappingFactory(base);
        Path subtask1 = java.nio.file.Files.createDirectories(ActionStateStoreFactory.subtaskDirectory(base, 1));
        try (NativeActionStateStore earlier = ActionStateStores.openFileStore(subtask1)) {
            ActionState inFlight = new ActionState();
            earlier.put("user-1", 0, AgentJob.ACTION_NAME, EventIdentity.rootOccurrence("user-1", 0), inFlight);
        }
        Exception failure = assertThrows(Exception.class, () -> run(settings));
        assertTrue(Failures.causes(failure).contains("subtask 1 (ForwardingStore{") && Failures.causes(failure).contains(
                "holds 1 entries of an earlier run"), Failures.causes(failure));
        try (NativeActionStateStore store = ActionStateStores.openFileStore(subtask1)) {
            assertEquals(1, store.stats().entries(), "the refusal left the earlier run's store as it was");
        }
    }

    /** A user's factory: file stores under {@code base}, each wrapped in a {@link ForwardingStore}. */
    static final class WrappingFactory implements ActionStateStoreFactory {
        private static final long serialVersionUID = 1L;
        private final String base;

        WrappingFactory(String base) {
            this.base = base;
        }

        @Override
        public io.durablejournal.store.ActionStateStore open(int subtaskIndex, int parallelism) throws Exception {
            Path dir = java.nio.file.Files.createDirectories(ActionStateStoreFactory.subtaskDirectory(base, subtaskIndex));
            return new ForwardingStore(ActionStateStores.openFileStore(dir));
        }
    }

    @JobTest
    void withoutTheJournalTheSameJobRunsSideEffectsAgain(@TempDir Path tmp) throws Exception {
        AgentJob.Settings settings = new AgentJob.Settings(tmp);
        settings.journal = false;
        AgentJob.Outcome outcome = run(settings);

        assertTrue(outcome.crashed, "the crash was injected");
        assertEquals(REQUESTS * 3, outcome.sideEffects.size());
        // Requests 5 and 6 ran all three calls again, request 7 its chat and first tool call.
        assertEquals((CRASH - GATE) * 3 + 2, outcome.duplicateSideEffects(), "duplicates: " + outcome.sideEffects);
        for (int i = GATE; i <= CRASH; i++) {
            assertEquals(2, outcome.sideEffects.get(RequestSource.requestId(i) + "/" + SupportAgent.CHAT));
        }
        List<String> expected = AgentJob.expectedAnswers(REQUESTS);
        assertNotEquals(expected, outcome.answers, "answers built from calls that ran twice differ");
        long wrong = outcome.answers.stream().filter(a -> !expected.contains(a)).count();
        assertEquals(CRASH - GATE + 1, wrong, "the answers of requests 5..7 name a second run: " + outcome.answers);
        assertEquals(0, outcome.callsReplayed);
    }
}
