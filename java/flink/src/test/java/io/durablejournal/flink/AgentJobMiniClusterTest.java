package io.durablejournal.flink;

import static io.durablejournal.demo.JobSettings.CRASH;
import static io.durablejournal.demo.JobSettings.GATE;
import static io.durablejournal.demo.JobSettings.REQUESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.demo.AgentJob;
import io.durablejournal.demo.RequestSource;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.NativeActionStateStore;
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
