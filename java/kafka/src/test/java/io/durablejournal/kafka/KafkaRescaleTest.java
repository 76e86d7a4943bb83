package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.demo.AgentJob;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.SideEffectLog;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.DurableActionFunction;
import io.durablejournal.flink.DurableAsyncActions;
import io.durablejournal.kafka.RescaleStaging.HeldAgent;
import io.durablejournal.kafka.RescaleStaging.Probe;
import io.durablejournal.testing.Checkpoints;
import io.durablejournal.testing.Failures;
import io.durablejournal.testing.JobResults;
import io.durablejournal.testing.LongJobTimeout;
import io.durablejournal.testing.RepeatedRuns;
import io.durablejournal.testing.RunRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rescaling with actions in flight: {@link DurableAsyncActions} with the Kafka store runs sixteen
 * requests of eight users at parallelism 2. The first request of six users makes its chat call and
 * waits until a checkpoint taken meanwhile has completed, then makes its first tool call and stays
 * in flight; their users' second requests wait behind them, and other users' completed requests
 * queue behind them in the ordered async operator. The job is cancelled with its last checkpoint
 * retained, and restored from it at parallelism 3 (or 1).
 *
 * <p>Flink hands the restored in-flight records to the new subtasks round robin, so some run in a
 * subtask that does not own their key: its store loads that key group from the topic on first use.
 * Every interrupted action finds its journal (the call made before the checkpoint and the one made
 * after it), and no side effect runs twice.
 */
class KafkaRescaleTest {
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.withFlink(4);

    @TempDir
    Path tmp;

    /** Checkpoints every 100 ms under {@code checkpoints}, retained when the job is cancelled or fails. */
    static Configuration flinkConfiguration(Path checkpoints) {
        Configuration conf = AgentJob.flinkConfiguration(Duration.ofMillis(100));
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        return conf;
    }

    private static StreamExecutionEnvironment job(Configuration conf, int parallelism, String runId, ActionStateStoreFactory stores) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.setMaxParallelism(KafkaActionStateStores.DEFAULT_MAX_PARALLELISM);
        DataStream<String> answers = DurableAsyncActions.apply(
                env.addSource(RescaleStaging.source(runId), "requests", Types.POJO(Request.class)).setParallelism(1).uid("requests")
                        .keyBy(new AgentJob.ByUser(), Types.STRING),
                "rescaled-agent", new HeldAgent(runId), Types.STRING,
                RescaleStaging.observed(stores, runId), 16);
        answers.map(RescaleStaging.answers(runId), Types.STRING).uid("answers").sinkTo(new DiscardingSink<>());
        return env;
    }

    /** Run 1, parallelism 2: cancelled once every held action is in flight with two calls, one after a completed checkpoint. */
    private static Probe runHeldAndCancel(Path checkpoints, String sideEffects, ActionStateStoreFactory stores) throws Exception {
        Probe holding = new Probe(true, sideEffects, Set.of("req-06", "req-07", "req-14", "req-15"));
        try (RunRegistry.Registration<Probe> run = RescaleStaging.RUNS.register(holding)) {
            JobClient client = job(flinkConfiguration(checkpoints), 2, run.id(), stores)
                    .executeAsync("rescale: run at parallelism 2");
            assertTrue(holding.toolsDone.await(120, TimeUnit.SECONDS), "every held action made its first tool call");
            client.cancel().get(60, TimeUnit.SECONDS);
            try {
                client.getJobExecutionResult().get(60, TimeUnit.SECONDS);
            } catch (ExecutionException cancelled) {
                // The expected end of this run.
            }
        }
        assertTrue(holding.witness().checkpoint() > 0);
        return holding;
    }

    @Test
    @LongJobTimeout
    void aFileStoreCheckpointIsNotRestoredAtAnotherParallelism() throws Exception {
        Path checkpoints = Files.createDirectories(tmp.resolve("checkpoints"));
        String sideEffects = tmp.resolve("side-effects.log").toString();
        ActionStateStoreFactory stores = ActionStateStoreFactory.fileStores(tmp.resolve("store").toString());
        runHeldAndCancel(checkpoints, sideEffects, stores);
        Map<String, Integer> beforeRestore = SideEffectLog.counts(Path.of(sideEffects));

        try (RunRegistry.Registration<Probe> run = RescaleStaging.RUNS.register(new Probe(false, sideEffects, Set.of()))) {
            Configuration conf = flinkConfiguration(checkpoints);
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, Checkpoints.latestRetained(checkpoints).toUri().toString());
            Exception refused = assertThrows(Exception.class,
                    () -> job(conf, 3, run.id(), stores).execute("file store at parallelism 3"));
            String causes = Failures.causes(refused);
            assertTrue(causes.contains("the checkpoint was taken at parallelism 2 and the job now runs at 3"), causes);
        }
        assertEquals(beforeRestore, SideEffectLog.counts(Path.of(sideEffects)), "nothing ran after the refusal");
    }

    @ParameterizedTest(name = "restored at parallelism {0}")
    @ValueSource(ints = {3, 1})
    @LongJobTimeout
    void actionsInFlightAtParallelism2ResumeOverTheirJournalsAtAnotherParallelism(int restoredParallelism) throws Exception {
        ActionStateStoreFactory stores = KafkaActionStateStores.factory(
                KAFKA.broker().config(KAFKA.broker().createTopic("journal-rescale-" + UUID.randomUUID(), 3)));
        Path checkpoints = Files.createDirectories(tmp.resolve("checkpoints"));
        String sideEffects = tmp.resolve("side-effects.log").toString();

        Probe holding = runHeldAndCancel(checkpoints, sideEffects, stores);
        Map<String, Integer> beforeRestore = SideEffectLog.counts(Path.of(sideEffects));

        // Run 2, restored from the retained checkpoint at another parallelism.
        Probe restored = new Probe(false, sideEffects, Set.of());
        JobExecutionResult result;
        try (RunRegistry.Registration<Probe> run = RescaleStaging.RUNS.register(restored)) {
            Configuration conf = flinkConfiguration(checkpoints);
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, Checkpoints.latestRetained(checkpoints).toUri().toString());
            result = job(conf, restoredParallelism, run.id(), stores).execute("rescale: restored at parallelism " + restoredParallelism);
        }

        Map<String, Integer> counts = SideEffectLog.counts(Path.of(sideEffects));
        assertEquals(Map.of(), RepeatedRuns.of(counts), "no side effect ran twice");
        assertEquals(RescaleStaging.REQUESTS * 3, counts.size(), "every call of every request ran");

        Map<String, String> answers = new HashMap<>(holding.answers);
        answers.putAll(restored.answers);
        for (int i = 0; i < RescaleStaging.REQUESTS; i++) {
            Request request = RescaleStaging.request(i);
            assertEquals(RescaleStaging.expectedAnswer(request), answers.get(request.id), "the answer of " + request.id);
        }
        for (int i = 0; i < RescaleStaging.HELD; i++) {
            Request request = RescaleStaging.request(i);
            assertEquals(1, beforeRestore.get(request.id + "/" + SupportAgent.lookupId(request)),
                    "held " + request.id + " made its tool call after the checkpoint, before the cancel");
            assertEquals(1, restored.bodyRuns.get(request.id).get(), request.id + " ran again once, after the restore");
        }
        assertEquals(2L * RescaleStaging.HELD, JobResults.counter(result, DurableActionFunction.ACC_CALLS_REPLAYED),
                "each held action replayed its chat (before the checkpoint) and its tool call (after it)");
        assertEquals(RescaleStaging.HELD, JobResults.counter(result, DurableActionFunction.ACC_ACTIONS_RESUMED));
        if (restoredParallelism > 2) {
            assertFalse(restored.ranOutsideOwner.isEmpty(),
                    "some restored in-flight records ran in a subtask that does not own their key (Flink's round robin)");
        }
        System.out.println("[rescale 2 -> " + restoredParallelism + "] ran outside their key's owner: " + restored.ranOutsideOwner);
    }
}
