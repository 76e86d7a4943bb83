package io.durablejournal.flinkagents;

import static io.durablejournal.demo.JobSettings.CRASH;
import static io.durablejournal.demo.JobSettings.GATE;
import static io.durablejournal.demo.JobSettings.REQUESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flinkagents.demo.AgentJob;
import io.durablejournal.testing.Failures;
import io.durablejournal.testing.JobTest;
import io.durablejournal.testing.LongJobTimeout;
import io.durablejournal.testing.MiniClusters;
import io.durablejournal.testing.RepeatedRuns;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeSet;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Flink Agents 0.3.1 agent ({@code SupportAgent}: two {@code @Action}s, a chat-like call
 * and two tool calls through {@code ctx.durableExecute}) on Flink Agents' own operator, on a
 * MiniCluster with parallelism 2. Twelve requests; the source waits for a checkpoint taken after
 * requests 0..4 were answered, emits 5..7 and holds further checkpoints until request 7's second
 * action crashes after its first tool call. Flink restores that checkpoint: 5 and 6 completed
 * after it, 7 was in flight.
 */
class FlinkAgentsJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @JobTest
    void withTheJournalStoreEverySideEffectRunsExactlyOnceAcrossTheFailover(@TempDir Path tmp) throws Exception {
        AgentJob.Outcome outcome = AgentJob.run(new AgentJob.Settings(tmp), Duration.ofMillis(100));

        assertTrue(outcome.crashed, "the crash was injected");
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers, "every request answered once, from calls that ran once");
        assertEquals(REQUESTS * 3, outcome.sideEffects.size(), "every call of every request ran");
        assertEquals(Map.of(), RepeatedRuns.of(outcome.sideEffects), "no side effect ran twice");
        assertEquals(1, outcome.callsReplayed(), "the first tool call of the crashed action replayed from its journal");
        assertEquals(REQUESTS + 1, outcome.resolveRuns, "every resolve ran once, the crashed one twice");
        assertEquals(REQUESTS, outcome.draftRuns, "no completed action ran again: re-emitted from the store");
        assertEquals(2 * (CRASH - GATE) + 1, outcome.actionsReemitted,
                "both actions of requests 5 and 6 and the first of request 7 came from the store");
        assertEquals(1, outcome.actionsResumed, "request 7's interrupted action resumed over its journal");
    }

    @Test
    @LongJobTimeout
    void aCrashBeforeAnyCheckpointReplaysTheFirstAttemptsJournalsAndAFreshJobRefusesThem(@TempDir Path tmp) throws Exception {
        AgentJob.Settings settings = new AgentJob.Settings(tmp);
        settings.gateAt = -1;
        settings.crashAt = 2;
        // No checkpointing at all: the restart has no checkpoint and re-reads the source from the
        // start; the operator numbers each key's records from the start again.
        AgentJob.Outcome outcome = AgentJob.run(settings, null);

        assertTrue(outcome.crashed, "the crash was injected");
        assertEquals(AgentJob.expectedAnswers(REQUESTS), new ArrayList<>(new TreeSet<>(outcome.answers)),
                "every request answered, from calls that ran once (without checkpoints the sink may repeat an answer)");
        assertEquals(REQUESTS * 3, outcome.sideEffects.size());
        assertEquals(0, outcome.duplicateSideEffects(), "no side effect ran twice: " + outcome.sideEffects);
        assertEquals(1, outcome.callsReplayed(), "the crashed action's first tool call replayed from the first attempt's journal");
        assertEquals(REQUESTS, outcome.draftRuns, "actions completed in the first attempt were re-emitted, not run");
        assertEquals(1, outcome.actionsResumed);

        // Without checkpoints nothing was pruned: a new job over the same stores must not take
        // those entries for its own.
        AgentJob.Settings fresh = new AgentJob.Settings(tmp);
        fresh.crashAt = -1;
        fresh.gateAt = -1;
        Exception refused = assertThrows(Exception.class, () -> AgentJob.run(fresh, Duration.ofMillis(100)));
        assertTrue(Failures.causes(refused).contains("entries of an earlier run"), Failures.causes(refused));
    }

    @JobTest
    void withoutAStoreFlinkAgentsRunsTheSideEffectsAgain(@TempDir Path tmp) throws Exception {
        AgentJob.Settings settings = new AgentJob.Settings(tmp);
        settings.journal = false;
        AgentJob.Outcome outcome = AgentJob.run(settings, Duration.ofMillis(100));

        assertTrue(outcome.crashed, "the crash was injected");
        assertEquals(REQUESTS * 3, outcome.sideEffects.size());
        // Requests 5 and 6 ran their three calls again, request 7 its chat and first tool call.
        assertEquals((CRASH - GATE) * 3 + 2, outcome.duplicateSideEffects(), "duplicates: " + outcome.sideEffects);
        long wrong = outcome.answers.stream().filter(a -> !AgentJob.expectedAnswers(REQUESTS).contains(a)).count();
        assertEquals(CRASH - GATE + 1, wrong, "the answers of requests 5..7 name a second run: " + outcome.answers);
        assertEquals(0, outcome.callsReplayed());
    }
}
