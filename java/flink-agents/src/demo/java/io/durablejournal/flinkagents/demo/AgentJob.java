package io.durablejournal.flinkagents.demo;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flinkagents.DurableAgents;
import io.durablejournal.flinkagents.MethodByReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.flink.agents.plan.AgentConfiguration;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.runtime.CompileUtils;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.SinkFunction;
import org.apache.flink.util.CloseableIterator;

/**
 * The demo job: {@link RequestSource} → keyed by user → {@link SupportAgent} on Flink Agents'
 * operator (parallelism {@link Settings#parallelism}) → collected answers: exactly once with
 * checkpointing (Flink's collect sink), else every answer the sink saw, repeats included.
 * With the journal the operator comes from {@link DurableAgents} over file stores; without it,
 * from Flink Agents' {@code CompileUtils} (no store, as a Flink Agents job without Kafka runs).
 */
public final class AgentJob {
    private static final String JOB_NAME = "durable-journal on Flink Agents";
    /** The agent operator's uid: its state is found again when a checkpoint is restored at another parallelism. */
    private static final String AGENT_UID = "support-agent";

    private AgentJob() {}

    /** What to run. */
    public static final class Settings {
        public int requests = 12;
        /** The gate (see {@link RequestSource}); negative: none. */
        public int gateAt = 5;
        /** The request that crashes once after its first tool call; negative: none. */
        public int crashAt = 7;
        public int parallelism = 2;
        public boolean journal = true;
        /** Side-effect file and (by default) the stores live here. */
        public Path workDir;
        /** Null: file stores under {@link #storeDir()}. */
        public ActionStateStoreFactory stores;
        /**
         * Runs in the crashing action right before the injected crash, in this JVM (a test loses
         * the machine's local disk there); null: nothing.
         */
        public Runnable atCrash;

        public Path sideEffectFile() {
            return workDir.resolve("side-effects.log");
        }

        public Path storeDir() {
            return workDir.resolve("store");
        }

        ActionStateStoreFactory storeFactory() {
            return stores != null ? stores : ActionStateStoreFactory.fileStores(storeDir().toString());
        }
    }

    /** What a run did. */
    public static final class Outcome {
        /** The answers the sink received, sorted. */
        public final List<String> answers;
        /** How many times each call ran, by {@code <requestId>/<call>}. */
        public final Map<String, Integer> sideEffects;
        public final boolean crashed;
        public final int callsRequested;
        public final int callsExecuted;
        public final int draftRuns;
        public final int resolveRuns;
        /** The class loaders the agent's actions ran in. */
        public final Set<String> agentLoaders;
        /** Completed actions re-emitted from the store after the failover, without running (journal only). */
        public final long actionsReemitted;
        /** Interrupted actions that ran again over their journal (journal only). */
        public final long actionsResumed;
        public final long wallMillis;

        Outcome(List<String> answers, Map<String, Integer> sideEffects, Staging staging, JobExecutionResult result,
                long wallMillis) {
            this.answers = answers;
            this.sideEffects = sideEffects;
            this.crashed = staging.crashInjected();
            this.callsRequested = staging.callsRequested();
            this.callsExecuted = staging.callsExecuted();
            this.draftRuns = staging.actionRuns("draft");
            this.resolveRuns = staging.actionRuns("resolve");
            this.agentLoaders = new TreeSet<>(staging.agentLoaders());
            this.actionsReemitted = accumulator(result, DurableAgents.ACC_ACTIONS_REEMITTED);
            this.actionsResumed = accumulator(result, DurableAgents.ACC_ACTIONS_RESUMED);
            this.wallMillis = wallMillis;
        }

        private static long accumulator(JobExecutionResult result, String name) {
            Object value = result.getAccumulatorResult(name);
            return value == null ? 0 : ((Number) value).longValue();
        }

        /** Calls answered from the journal instead of running. */
        public int callsReplayed() {
            return callsRequested - callsExecuted;
        }

        /** Executions beyond the first, summed over all calls. */
        public int duplicateSideEffects() {
            int duplicates = 0;
            for (int n : sideEffects.values()) {
                duplicates += n - 1;
            }
            return duplicates;
        }
    }

    /** Checkpointing every {@code interval} (null: none) and up to 3 restarts, 50 ms apart. */
    public static Configuration flinkConfiguration(Duration interval) {
        Configuration conf = new Configuration();
        if (interval != null) {
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
        }
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(50));
        return conf;
    }

    /** The answers of requests {@code 0 .. requests-1} when each call ran exactly once, sorted. */
    public static List<String> expectedAnswers(int requests) {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            expected.add(SupportAgent.expectedAnswer(SupportRequest.number(i)));
        }
        Collections.sort(expected);
        return expected;
    }

    /** The agent's plan for a run: its {@link Staging} and side-effect file come in the agent configuration. */
    public static AgentPlan plan(String runId, Path sideEffectFile) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(SupportAgent.RUN_ID, runId);
        config.put(SupportAgent.SIDE_EFFECTS, sideEffectFile.toString());
        return new AgentPlan(new SupportAgent(), new AgentConfiguration(config));
    }

    /** Builds the job on {@code env}, runs it to the end and reports. */
    public static Outcome run(StreamExecutionEnvironment env, Settings settings) throws Exception {
        Objects.requireNonNull(settings.workDir, "settings.workDir");
        Files.createDirectories(settings.workDir);
        String runId = UUID.randomUUID().toString();
        Staging staging = new Staging(settings.crashAt >= 0 ? SupportRequest.id(settings.crashAt) : null, settings.atCrash);
        Staging.register(runId, staging);
        try {
            long started = System.nanoTime();
            env.setParallelism(settings.parallelism);
            int burstEnd = settings.crashAt >= 0 ? settings.crashAt : settings.gateAt;
            KeyedStream<SupportRequest, String> requests = env
                    .addSource(new RequestSource(runId, settings.requests, settings.gateAt, burstEnd), "requests",
                            Types.POJO(SupportRequest.class))
                    .setParallelism(1)
                    .uid("requests")
                    .keyBy(new ByUser(), Types.STRING);
            AgentPlan plan = plan(runId, settings.sideEffectFile());
            DataStream<String> answers;
            if (settings.journal) {
                answers = DurableAgents.connectToAgent(requests, plan, settings.storeFactory())
                        .setParallelism(settings.parallelism)
                        .uid(AGENT_UID)
                        .map(new AsText(), Types.STRING);
            } else {
                // Flink Agents' own wiring, no store; with the same fix for its Kryo copies, so that
                // only the missing journal tells the two runs apart.
                MethodByReference.register(env);
                SingleOutputStreamOperator<Object> outputs =
                        (SingleOutputStreamOperator<Object>) CompileUtils.connectToAgent(requests, plan);
                answers = outputs.setParallelism(settings.parallelism).uid(AGENT_UID).map(new AsText(), Types.STRING);
            }
            List<String> collected = new ArrayList<>();
            JobExecutionResult result;
            if (env.getCheckpointConfig().isCheckpointingEnabled()) {
                try (CloseableIterator<String> results = answers.collectAsync()) {
                    JobClient client = env.executeAsync(JOB_NAME);
                    results.forEachRemaining(collected::add);
                    result = client.getJobExecutionResult().get();
                }
            } else {
                // Flink's collect sink gives up on a restart without checkpoints.
                answers.addSink(new ToStaging(runId)).setParallelism(1);
                result = env.execute(JOB_NAME);
                collected.addAll(staging.answers());
            }
            Collections.sort(collected);
            long wallMillis = (System.nanoTime() - started) / 1_000_000;
            return new Outcome(collected, SideEffects.counts(settings.sideEffectFile()), staging, result, wallMillis);
        } finally {
            Staging.unregister(runId);
        }
    }

    /** Keys requests by user. */
    public static final class ByUser implements KeySelector<SupportRequest, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(SupportRequest request) {
            return request.user;
        }
    }

    /** Hands each answer to the run's {@link Staging}. */
    public static final class ToStaging implements SinkFunction<String> {
        private static final long serialVersionUID = 1L;
        private final String runId;

        ToStaging(String runId) {
            this.runId = runId;
        }

        @Override
        public void invoke(String answer, Context context) {
            Staging.of(runId).sinkReceived(answer);
        }
    }

    /** The agent's outputs are its answers. */
    public static final class AsText implements MapFunction<Object, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String map(Object output) {
            return (String) output;
        }
    }
}
