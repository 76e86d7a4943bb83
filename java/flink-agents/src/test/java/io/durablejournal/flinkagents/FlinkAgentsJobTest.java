package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flinkagents.demo.AgentJob;
import io.durablejournal.testing.Failures;
import io.durablejournal.testing.MiniClusters;
import io.durablejournal.testing.RepeatedRuns;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
    private static final int REQUESTS = 12;
    private static final int GATE = 5;
    private static final int CRASH = 7;

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir
    Path tmp;

    private AgentJob.Settings settings(boolean journal) {
        AgentJob.Settings settings = new AgentJob.Settings();
        settings.workDir = tmp.resolve(journal ? "journaled" : "plain");
        settings.requests = REQUESTS;
        settings.gateAt = GATE;
        settings.crashAt = CRASH;
        settings.parallelism = 2;
        settings.journal = journal;
        return settings;
    }

    private static AgentJob.Outcome run(AgentJob.Settings settings, Duration checkpointInterval) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                AgentJob.flinkConfiguration(checkpointInterval));
        AgentJob.Outcome outcome = AgentJob.run(env, settings);
        System.out.println("[timing] Flink Agents job " + (settings.journal ? "with" : "without") + " the journal: "
                + outcome.wallMillis + " ms");
        return outcome;
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void withTheJournalStoreEverySideEffectRunsExactlyOnceAcrossTheFailover() throws Exception {
        AgentJob.Outcome outcome = run(settings(true), Duration.ofMillis(100));

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
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aCrashBeforeAnyCheckpointReplaysTheFirstAttemptsJournalsAndAFreshJobRefusesThem() throws Exception {
        AgentJob.Settings settings = settings(true);
        settings.gateAt = -1;
        settings.crashAt = 2;
        // No checkpointing at all: the restart has no checkpoint and re-reads the source from the
        // start; the operator numbers each key's records from the start again.
        AgentJob.Outcome outcome = run(settings, null);

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
        AgentJob.Settings fresh = settings(true);
        fresh.crashAt = -1;
        fresh.gateAt = -1;
        Exception refused = assertThrows(Exception.class, () -> run(fresh, Duration.ofMillis(100)));
        assertTrue(Failures.causes(refused).contains("entries of an earlier run"), Failures.causes(refused));
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void withoutAStoreFlinkAgentsRunsTheSideEffectsAgain() throws Exception {
        AgentJob.Outcome outcome = run(settings(false), Duration.ofMillis(100));

        assertTrue(outcome.crashed, "the crash was injected");
        assertEquals(REQUESTS * 3, outcome.sideEffects.size());
        // Requests 5 and 6 ran their three calls again, request 7 its chat and first tool call.
        assertEquals((CRASH - GATE) * 3 + 2, outcome.duplicateSideEffects(), "duplicates: " + outcome.sideEffects);
        long wrong = outcome.answers.stream().filter(a -> !AgentJob.expectedAnswers(REQUESTS).contains(a)).count();
        assertEquals(CRASH - GATE + 1, wrong, "the answers of requests 5..7 name a second run: " + outcome.answers);
        assertEquals(0, outcome.callsReplayed());
    }
}
