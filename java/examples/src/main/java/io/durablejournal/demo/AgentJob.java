package io.durablejournal.demo;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.flink.DurableActionFunction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The demo job on durable-journal's own operator, also run by the end-to-end tests: {@link
 * RequestSource} → keyBy user → {@link DurableActionFunction} running {@link SupportAgent} →
 * collected answers. One request crashes once mid-action, after a checkpoint has completed; Flink
 * restarts the job from that checkpoint and the journal decides what runs again. (The same story
 * on Flink Agents' operator: {@code io.durablejournal.flinkagents.demo.AgentJob}.)
 */
public final class AgentJob {
    public static final String ACTION_NAME = "support-agent";

    private AgentJob() {}

    /** What to run. */
    public static final class Settings extends JobSettings {
        /** The defaults, the run's files under {@code workDir} ({@link JobSettings#JobSettings(Path)}). */
        public Settings(Path workDir) {
            super(workDir);
        }

        /** The crashing request crashes after this many of its 3 calls. */
        public int crashAfterCalls = 2;
        public Duration checkpointInterval = Duration.ofMillis(100);
        /** Null: the file store under {@code workDir/store}. */
        public ActionStateStoreFactory storeFactory;
        /** Null: a {@link SupportAgent} on this work dir's side-effect log and crash plan. */
        public AgentAction<Request, String> agent;

        /** The {@link SupportAgent} these settings describe. */
        public SupportAgent supportAgent() {
            String crashRequest = crashAt >= 0 ? RequestSource.requestId(crashAt) : "";
            return new SupportAgent(sideEffectLog().toString(), new CrashPlan(crashRequest, crashAfterCalls, crashFlag().toString()));
        }

        /** The side-effect log ({@link #sideEffectFile()}). */
        public Path sideEffectLog() {
            return sideEffectFile();
        }

        public Path crashFlag() {
            return workDir.resolve("crash-injected");
        }
    }

    /** What happened. */
    public static final class Outcome extends JobOutcome {
        public final long actionsRun;
        public final long callsReplayed;

        Outcome(DemoJobs.Finished run, Settings settings) throws java.io.IOException {
            super(run, SideEffectLog.counts(settings.sideEffectFile()), Files.exists(settings.crashFlag()),
                    DurableActionFunction.ACC_ACTIONS_REEMITTED, DurableActionFunction.ACC_ACTIONS_RESUMED);
            this.actionsRun = accumulator(run.result, DurableActionFunction.ACC_ACTIONS_RUN);
            this.callsReplayed = accumulator(run.result, DurableActionFunction.ACC_CALLS_REPLAYED);
        }

        /** Side effects that ran, repeats included. */
        public int callsExecuted() {
            return sideEffectsRun();
        }
    }

    /** Checkpointing every {@code interval} and a fixed-delay restart strategy (3 attempts). */
    public static Configuration flinkConfiguration(Duration interval) {
        return DemoJobs.flinkConfiguration(interval);
    }

    /** The answers every request gets when each call runs exactly once, sorted. */
    public static List<String> expectedAnswers(int requests) {
        return DemoJobs.expectedAnswers(requests, i -> SupportAgent.expectedAnswer(RequestSource.request(i)));
    }

    /** Builds the job on {@code env}, runs it to the end and reports. */
    public static Outcome run(StreamExecutionEnvironment env, Settings settings) throws Exception {
        Objects.requireNonNull(settings.workDir, "settings.workDir");
        Files.createDirectories(settings.workDir);
        long started = System.nanoTime();
        env.setParallelism(settings.parallelism);
        AgentAction<Request, String> agent = settings.agent != null ? settings.agent : settings.supportAgent();
        DurableActionFunction<String, Request, String> function;
        if (settings.journal) {
            ActionStateStoreFactory stores = settings.storeFactory != null
                    ? settings.storeFactory
                    : ActionStateStoreFactory.fileStores(settings.storeDir().toString());
            function = new DurableActionFunction<>(ACTION_NAME, agent, String.class, stores);
        } else {
            function = DurableActionFunction.withoutJournal(ACTION_NAME, agent, String.class);
        }
        DataStream<String> answers = env
                .addSource(RequestSource.of(settings.requests, settings.gateAt, settings.burstEnd()), "requests",
                        Types.POJO(Request.class))
                .setParallelism(1)
                .keyBy(new ByUser(), Types.STRING)
                .process(function, Types.STRING)
                .name(ACTION_NAME);
        return new Outcome(DemoJobs.collectToEnd(env, answers, "durable-journal agent job", started), settings);
    }

    /**
     * Runs the job on this JVM's environment (a test's MiniCluster), checkpointing every {@code
     * checkpointInterval} (null: never), and prints its wall time ({@link DemoJobs#runLocally}).
     */
    public static Outcome run(Settings settings, Duration checkpointInterval) throws Exception {
        return DemoJobs.runLocally("agent job", AgentJob::run, settings, checkpointInterval);
    }

    /** Keys requests by user. */
    public static final class ByUser extends UserKey<Request> {
        private static final long serialVersionUID = 1L;
    }
}
