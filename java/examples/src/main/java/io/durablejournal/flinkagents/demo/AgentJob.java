package io.durablejournal.flinkagents.demo;

import io.durablejournal.demo.DemoJobs;
import io.durablejournal.demo.JobOutcome;
import io.durablejournal.demo.JobSettings;
import io.durablejournal.demo.RequestSource;
import io.durablejournal.demo.UserKey;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flinkagents.DurableAgents;
import io.durablejournal.flinkagents.MethodByReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.SinkFunction;

/**
 * The demo job on Flink Agents' own operator: {@link RequestSource} ({@link SupportRequest}s) →
 * keyed by user → {@link SupportAgent} on Flink Agents' operator (parallelism {@code
 * settings.parallelism}) → collected answers: exactly once with checkpointing (Flink's collect
 * sink), else every answer the sink saw, repeats included. With the journal the operator comes
 * from {@link DurableAgents} over file stores; without it, from Flink Agents' {@code CompileUtils}
 * (no store, as a Flink Agents job without Kafka runs). (The same story on durable-journal's own
 * operator: {@link io.durablejournal.demo.AgentJob}.)
 */
public final class AgentJob {
    private static final String JOB_NAME = "durable-journal on Flink Agents";
    /** The agent operator's uid: its state is found again when a checkpoint is restored at another parallelism. */
    private static final String AGENT_UID = "support-agent";

    private AgentJob() {}

    /** What to run (the crashing request's {@code resolve} crashes once after its first tool call). */
    public static final class Settings extends JobSettings {
        /** The defaults, the run's files under {@code workDir} ({@link JobSettings#JobSettings(Path)}). */
        public Settings(Path workDir) {
            super(workDir);
        }

        /** Null: file stores under {@link #storeDir()}. */
        public ActionStateStoreFactory stores;
        /**
         * Runs in the crashing action right before the injected crash, in this JVM (a test loses
         * the machine's local disk there); null: nothing.
         */
        public Runnable atCrash;
        /** Keys the requests by the user's number (a {@code Long}, {@link ByUserNumber}) instead of the user's name. */
        public boolean keyedByUserNumber;

        ActionStateStoreFactory storeFactory() {
            return stores != null ? stores : ActionStateStoreFactory.fileStores(storeDir().toString());
        }
    }

    /** What a run did. */
    public static final class Outcome extends JobOutcome {
        public final int callsRequested;
        public final int callsExecuted;
        public final int draftRuns;
        public final int resolveRuns;
        /** The class loaders the agent's actions ran in. */
        public final Set<String> agentLoaders;

        Outcome(DemoJobs.Finished run, Settings settings, Staging staging) throws java.io.IOException {
            super(run, SideEffects.counts(settings.sideEffectFile()), staging.crashInjected(),
                    DurableAgents.ACC_ACTIONS_REEMITTED, DurableAgents.ACC_ACTIONS_RESUMED);
            this.callsRequested = staging.callsRequested();
            this.callsExecuted = staging.callsExecuted();
            this.draftRuns = staging.actionRuns("draft");
            this.resolveRuns = staging.actionRuns("resolve");
            this.agentLoaders = new TreeSet<>(staging.agentLoaders());
        }

        /** Calls answered from the journal instead of running. */
        public int callsReplayed() {
            return callsRequested - callsExecuted;
        }
    }

    /** Checkpointing every {@code interval} (null: none) and up to 3 restarts, 50 ms apart. */
    public static Configuration flinkConfiguration(Duration interval) {
        return DemoJobs.flinkConfiguration(interval);
    }

    /** The answers of requests {@code 0 .. requests-1} when each call ran exactly once, sorted. */
    public static List<String> expectedAnswers(int requests) {
        return DemoJobs.expectedAnswers(requests, i -> SupportAgent.expectedAnswer(SupportRequest.number(i)));
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
        Staging staging = new Staging(settings.crashAt, settings.atCrash);
        Staging.register(runId, staging);
        try {
            long started = System.nanoTime();
            env.setParallelism(settings.parallelism);
            DataStream<SupportRequest> source = env
                    .addSource(new RequestSource<>(SupportRequest::number, settings.requests, settings.gateAt,
                            settings.burstEnd(), Staging.failover(runId)), "requests", Types.POJO(SupportRequest.class))
                    .setParallelism(1)
                    .uid("requests");
            KeyedStream<SupportRequest, ?> requests = settings.keyedByUserNumber
                    ? source.keyBy(new ByUserNumber(), Types.LONG)
                    : source.keyBy(new ByUser(), Types.STRING);
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
            DemoJobs.Finished run;
            if (env.getCheckpointConfig().isCheckpointingEnabled()) {
                run = DemoJobs.collectToEnd(env, answers, JOB_NAME, started);
            } else {
                // Flink's collect sink gives up on a restart without checkpoints.
                answers.addSink(new ToStaging(runId)).setParallelism(1);
                JobExecutionResult result = env.execute(JOB_NAME);
                run = new DemoJobs.Finished(staging.answers(), result, started);
            }
            return new Outcome(run, settings, staging);
        } finally {
            Staging.unregister(runId);
        }
    }

    /**
     * Runs the job on this JVM's environment (a test's MiniCluster), checkpointing every {@code
     * checkpointInterval} (null: never), and prints its wall time ({@link DemoJobs#runLocally}).
     */
    public static Outcome run(Settings settings, Duration checkpointInterval) throws Exception {
        return DemoJobs.runLocally("Flink Agents job", AgentJob::run, settings, checkpointInterval);
    }

    /** Keys requests by user. */
    public static final class ByUser extends UserKey<SupportRequest> {
        private static final long serialVersionUID = 1L;
    }

    /** Keys requests by the user's number: {@code user_2} is {@code 2L}. */
    public static final class ByUserNumber implements KeySelector<SupportRequest, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(SupportRequest request) {
            return Long.valueOf(request.user.substring(request.user.lastIndexOf('_') + 1));
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
