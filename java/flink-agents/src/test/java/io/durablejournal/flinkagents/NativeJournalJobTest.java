package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.CallSemantics;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.testing.Checkpoints;
import io.durablejournal.testing.Failures;
import io.durablejournal.testing.JobTest;
import io.durablejournal.testing.LongJobTimeout;
import io.durablejournal.testing.MiniClusters;
import io.durablejournal.testing.Restarts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.agents.plan.AgentConfiguration;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JournalSemanticsAgent}, a real {@code @Action} agent, on Flink Agents 0.3.1's own
 * operator, on a MiniCluster: wired by {@link DurableAgents#connectToAgent} (the native journal
 * decides every durable call), and, for comparison, by the same factory with Flink Agents' own
 * journal over the same store. The record is emitted after a completed checkpoint; the job crashes
 * in the action after its calls are recorded and restores that checkpoint.
 */
class NativeJournalJobTest {
    /** What the action outputs when every call ran once: the null, the caught exception, the reconciled refund. */
    static final String ANSWER = "hello|null|quota: over quota|notified|refund found";

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    @TempDir
    Path tmp;

    @JobTest
    void theNativeJournalReplaysNullTypedFailuresAsyncCallsAndReconcilesAPendingCall() throws Exception {
        JournalRun run = JournalRun.start(JournalRun.Crash.INSIDE_A_CALL);
        List<String> answers = runJob(run.id(), true, 3, null);

        assertTrue(run.crashed(), "the crash was injected inside the reconcilable call");
        assertEquals(Collections.singletonList(ANSWER), answers,
                "null replayed as null, the agent's own exception replayed into its own catch, the PENDING refund reconciled");
        Map<String, Integer> once = new HashMap<>();
        for (String call : new String[] {"greet", "lookup", "charge", "notify", "refund", "refund-reconciled"}) {
            once.put(call, 1);
        }
        assertEquals(once, run.runs(), "no recorded call ran again; the interrupted refund was reconciled, not run again");
    }

    /**
     * Documents Flink Agents 0.3.1's defect: its journal replays a recorded {@code null} with
     * {@code Optional.of(null)} ({@code RunnerContextImpl.tryGetCachedResult}), so the action fails
     * on every restart. A Flink Agents that fixes it fails this test.
     */
    @JobTest
    void flinkAgentsOwnJournalCannotReplayARecordedNull() throws Exception {
        JournalRun run = JournalRun.start(JournalRun.Crash.AFTER_RECORDED_CALLS);
        Exception failed = assertThrows(Exception.class, () -> runJob(run.id(), false, 1, null));

        assertTrue(run.crashed());
        String causes = Failures.causes(failed);
        assertTrue(causes.contains("java.lang.NullPointerException"), causes);
        assertTrue(Failures.stackTraces(failed).contains("RunnerContextImpl.tryGetCachedResult"), "the replay of the null failed");
        assertEquals(1, (int) run.runs().get("lookup"), "the null-returning call itself was replayed, not run");
    }

    @Test
    @LongJobTimeout
    void aJobRunWithFlinkAgentsOwnJournalIsRestoredOnTheNativeJournalAndReplaysItsCalls() throws Exception {
        JournalRun run = crashedWithoutRestarts(false);

        List<String> answers = runJob(run.id(), true, 0, Checkpoints.latestRetained(tmp.resolve("checkpoints")));

        // The null Flink Agents recorded replays as null, and the failure it recorded as the
        // agent's own exception (Flink Agents itself would rethrow a RuntimeException).
        assertEquals(Collections.singletonList("hello|null|quota: over quota|notified|refunded"), answers);
        assertCallsRanOnce(run);
        assertEquals(1, (int) run.runs().get("refund"), "the call after the crash ran once, after the restore");
    }

    @Test
    @LongJobTimeout
    void aJobRunWithTheNativeJournalIsRestoredOnFlinkAgentsOwnJournalAndReplaysItsCalls() throws Exception {
        JournalRun run = crashedWithoutRestarts(true);

        // Flink Agents' own journal replays the native journal's records; the recorded null is
        // still its NullPointerException, so that call is the one it cannot replay.
        Path checkpoint = Checkpoints.latestRetained(tmp.resolve("checkpoints"));
        Exception failed = assertThrows(Exception.class, () -> runJob(run.id(), false, 0, checkpoint));
        assertTrue(Failures.stackTraces(failed).contains("RunnerContextImpl.tryGetCachedResult"), Failures.causes(failed));
        assertEquals(1, (int) run.runs().get("greet"), "the call recorded by the native journal replayed in Flink Agents'");
        assertEquals(1, (int) run.runs().get("lookup"));
    }

    /**
     * An action that sends two equal events: each event's action has an entry of its own (events
     * identified by content would share one, apache/flink-agents#1084), found again after a
     * restore: the second echo crashes after its call, and the restored job re-emits the first
     * echo's output from the store and replays the second's call.
     */
    @JobTest
    void twoEqualEventsSentByOneActionEachHaveTheirOwnJournalAcrossARestore() throws Exception {
        JournalRun run = JournalRun.start(JournalRun.Crash.SECOND_ECHO);
        List<String> answers = runJob(run.id(), plan(run.id(), new EchoAgent()), Collections.singletonList("hello"), true, 3, null);

        assertTrue(run.crashed());
        Collections.sort(answers);
        assertEquals(java.util.Arrays.asList("hello #1", "hello #2"), answers);
        assertEquals(2, (int) run.runs().get("count"), "each echo's call ran once: " + run.runs());
    }

    @JobTest
    void twoEqualRecordsOfOneKeyAreTwoInputsEachWithItsOwnJournal() throws Exception {
        JournalRun run = JournalRun.start(JournalRun.Crash.NONE);
        List<String> answers = runJob(run.id(), plan(run.id(), new EchoAgent()), java.util.Arrays.asList("same", "same"), true, 0,
                null);

        Collections.sort(answers);
        assertEquals(java.util.Arrays.asList("same #1", "same #2", "same #3", "same #4"), answers);
        assertEquals(4, (int) run.runs().get("count"));
    }

    /**
     * A failover during each of two calls of {@link IdempotentCallsAgent}: the default call runs
     * again under the same idempotency key, so the service that deduplicates by it applies it once;
     * the at-most-once call's body does not run again, and the action gets {@code
     * CallInterruptedException} naming the key the service saw.
     */
    @JobTest
    void aFailoverDuringACallRepeatsItUnderItsKeyAndAnAtMostOnceCallIsInterrupted() throws Exception {
        JournalRun run = JournalRun.start(JournalRun.Crash.NONE);
        List<String> answers = runJob(run.id(), plan(run.id(), new IdempotentCallsAgent()), Collections.singletonList("order-1"),
                true, 3, null);

        Map<String, Integer> runs = run.runs();
        assertEquals(1, answers.size(), answers.toString());
        String[] parts = answers.get(0).split("\\|");
        String chargeKey = parts[0].substring("charge ".length());
        String notifyKey = parts[1].substring("interrupted ".length());
        assertTrue(parts[1].startsWith("interrupted idem:"), answers.toString());
        assertEquals(2, (int) runs.get("charge"), "the charge ran again after the failover during it: " + runs);
        assertEquals(2, (int) runs.get("request " + chargeKey), "both runs sent the same key: " + runs);
        assertEquals(1, (int) runs.get("notify"), "the at-most-once body ran once: " + runs);
        assertEquals(1, (int) runs.get("request " + notifyKey), runs.toString());
        long keys = runs.keySet().stream().filter(name -> name.startsWith("request ")).count();
        assertEquals(2, keys, "the service applied one effect per call: " + runs);
    }

    /**
     * With the job default at most once ({@link DurableActionExecutionOperatorFactory#withDefaultCallSemantics}),
     * a call that declares nothing is interrupted after a failover during it, its body not run
     * again; a call declaring {@link AtLeastOnceCall} runs again.
     */
    @JobTest
    void underAnAtMostOnceJobDefaultACallDeclaringNothingIsInterruptedAndAnAtLeastOnceCallRunsAgain() throws Exception {
        JournalRun run = JournalRun.start(JournalRun.Crash.NONE);
        List<String> answers = runJob(run.id(), plan(run.id(), new JobDefaultCallsAgent()), Collections.singletonList("order-1"),
                true, 3, null, CallSemantics.AT_MOST_ONCE);

        Map<String, Integer> runs = run.runs();
        assertEquals(1, answers.size(), answers.toString());
        String[] parts = answers.get(0).split("\\|");
        assertTrue(parts[0].startsWith("interrupted idem:"), answers.toString());
        assertTrue(parts[1].startsWith("lookup idem:"), answers.toString());
        assertEquals(1, (int) runs.get("charge"), "the undeclared call took the job's default, at most once: " + runs);
        assertEquals(2, (int) runs.get("lookup"), "the at-least-once call ran again after the failover during it: " + runs);
    }

    private static void assertCallsRanOnce(JournalRun run) {
        Map<String, Integer> runs = run.runs();
        for (String call : new String[] {"greet", "lookup", "charge", "notify"}) {
            assertEquals(1, (int) runs.get(call), call + " ran once: " + runs);
        }
    }

    /**
     * A first run, on the native journal or on Flink Agents' own, that crashes after its recorded
     * calls and, with no restarts, fails the job: its last checkpoint is what a restore starts from.
     */
    private JournalRun crashedWithoutRestarts(boolean nativeJournal) throws Exception {
        JournalRun run = JournalRun.start(JournalRun.Crash.AFTER_RECORDED_CALLS);
        assertThrows(Exception.class, () -> runJob(run.id(), nativeJournal, 0, null), "the crash fails the job: no restarts");
        assertTrue(run.crashed());
        return run;
    }

    /** The job's answers; it fails (throws) when the action keeps failing or there are no restarts left. */
    private List<String> runJob(String runId, boolean nativeJournal, int restarts, Path restoreFrom) throws Exception {
        return runJob(runId, plan(runId, new JournalSemanticsAgent()), Collections.singletonList("request-1"), nativeJournal,
                restarts, restoreFrom);
    }

    private List<String> runJob(String runId, AgentPlan plan, List<String> records, boolean nativeJournal, int restarts,
            Path restoreFrom) throws Exception {
        return runJob(runId, plan, records, nativeJournal, restarts, restoreFrom, null);
    }

    private List<String> runJob(String runId, AgentPlan plan, List<String> records, boolean nativeJournal, int restarts,
            Path restoreFrom, CallSemantics defaultCallSemantics) throws Exception {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, tmp.resolve("checkpoints").toUri().toString());
        conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        if (restarts > 0) {
            Restarts.fixedDelay(conf, restarts, Duration.ofMillis(50));
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        if (restoreFrom != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom.toUri().toString());
            // The collect sink's state is the earlier job's client's, not this one's.
            conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        KeyedStream<String, String> input = env
                .addSource(new GatedSource(runId, records), "requests", Types.STRING)
                .uid("requests")
                .keyBy(request -> request, Types.STRING);
        ActionStateStoreFactory stores = ActionStateStoreFactory.fileStores(tmp.resolve("store").toString());
        MethodByReference.register(env);
        DataStream<String> answers = input
                .transform(DurableAgents.OPERATOR_NAME, TypeInformation.of(Object.class),
                        new DurableActionExecutionOperatorFactory<String, Object>(plan, true, stores, nativeJournal)
                                .withDefaultCallSemantics(defaultCallSemantics))
                .uid("agent")
                .map(output -> (String) output, Types.STRING)
                .uid("answers");
        List<String> collected = new ArrayList<>();
        try (CloseableIterator<String> results = answers.collectAsync()) {
            JobClient client = env.executeAsync("native journal " + (nativeJournal ? "on" : "off"));
            // A job that never reaches its staged crash would hold its source forever, and Flink's
            // collect iterator ignores interrupts: past the deadline the job is cancelled, so the
            // test fails instead of hanging.
            ScheduledFuture<?> deadline = DEADLINES.schedule(() -> client.cancel(), JOB_DEADLINE_SECONDS, TimeUnit.SECONDS);
            try {
                results.forEachRemaining(collected::add);
            } finally {
                deadline.cancel(false);
                client.getJobExecutionResult().get();
            }
        }
        return collected;
    }

    private static final long JOB_DEADLINE_SECONDS = 90;
    private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "job-deadline");
        thread.setDaemon(true);
        return thread;
    });

    static AgentPlan plan(String runId, org.apache.flink.agents.api.agents.Agent agent) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(JournalSemanticsAgent.RUN_ID, runId);
        return new AgentPlan(agent, new AgentConfiguration(config));
    }
}
