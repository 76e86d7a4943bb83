package io.durablejournal.demo;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.flink.DurableActionFunction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * The agent job of the demo and of the end-to-end tests: {@link RequestSource} → keyBy user →
 * {@link DurableActionFunction} running {@link SupportAgent} → collected answers. One request
 * crashes once mid-action, after a checkpoint has completed; Flink restarts the job from that
 * checkpoint and the journal decides what runs again.
 */
public final class AgentJob {
    public static final String ACTION_NAME = "support-agent";

    private AgentJob() {}

    /** What to run. Mutable, for a short setup block. */
    public static final class Settings {
        public int requests = 12;
        /** The source waits before this request for a completed checkpoint (negative: no gate). */
        public int gateAt = 5;
        /** Index of the request that crashes (negative: none); the gate's burst ends there. */
        public int crashAt = 7;
        public int crashAfterCalls = 2;
        public int parallelism = 2;
        public boolean journal = true;
        public Duration checkpointInterval = Duration.ofMillis(100);
        /** Side-effect log, crash flag and (by default) the store live here. */
        public Path workDir;
        /** Null: the file store under {@code workDir/store}. */
        public ActionStateStoreFactory storeFactory;
        /** Null: a {@link SupportAgent} on this work dir's side-effect log and crash plan. */
        public AgentAction<Request, String> agent;

        /** The {@link SupportAgent} these settings describe. */
        public SupportAgent supportAgent() {
            String crashRequest = crashAt >= 0 ? RequestSource.requestId(crashAt) : "";
            return new SupportAgent(sideEffectLog().toString(), crashRequest, crashAfterCalls, crashFlag().toString());
        }

        public Path storeDir() {
            return workDir.resolve("store");
        }

        public Path sideEffectLog() {
            return workDir.resolve("side-effects.log");
        }

        public Path crashFlag() {
            return workDir.resolve("crash-injected");
        }
    }

    /** What happened. */
    public static final class Outcome {
        public final List<String> answers;
        public final Map<String, Integer> sideEffects;
        public final boolean crashed;
        public final long actionsRun;
        public final long actionsResumed;
        public final long actionsReemitted;
        public final long callsReplayed;
        public final long wallMillis;

        Outcome(List<String> answers, Map<String, Integer> sideEffects, boolean crashed, JobExecutionResult result, long wallMillis) {
            this.answers = answers;
            this.sideEffects = sideEffects;
            this.crashed = crashed;
            this.actionsRun = counter(result, DurableActionFunction.ACC_ACTIONS_RUN);
            this.actionsResumed = counter(result, DurableActionFunction.ACC_ACTIONS_RESUMED);
            this.actionsReemitted = counter(result, DurableActionFunction.ACC_ACTIONS_REEMITTED);
            this.callsReplayed = counter(result, DurableActionFunction.ACC_CALLS_REPLAYED);
            this.wallMillis = wallMillis;
        }

        private static long counter(JobExecutionResult result, String name) {
            Object value = result.getAccumulatorResult(name);
            return value == null ? 0 : ((Number) value).longValue();
        }

        public int callsExecuted() {
            int total = 0;
            for (int n : sideEffects.values()) {
                total += n;
            }
            return total;
        }

        public int duplicateSideEffects() {
            return SideEffectLog.duplicates(sideEffects);
        }
    }

    /** Checkpointing every {@code interval} and a fixed-delay restart strategy (3 attempts). */
    public static Configuration flinkConfiguration(Duration interval) {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(50));
        return conf;
    }

    /** The answers every request gets when each call runs exactly once, sorted. */
    public static List<String> expectedAnswers(int requests) {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            expected.add(SupportAgent.expectedAnswer(RequestSource.request(i)));
        }
        Collections.sort(expected);
        return expected;
    }

    /** Builds the job on {@code env}, runs it to the end and reports. */
    public static Outcome run(StreamExecutionEnvironment env, Settings settings) throws Exception {
        Objects.requireNonNull(settings.workDir, "settings.workDir");
        Files.createDirectories(settings.workDir);
        long started = System.nanoTime();
        env.setParallelism(settings.parallelism);
        int burstEnd = settings.crashAt >= 0 ? settings.crashAt : settings.gateAt;
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
                .addSource(new RequestSource(settings.requests, settings.gateAt, burstEnd), "requests", Types.POJO(Request.class))
                .setParallelism(1)
                .keyBy(new ByUser(), Types.STRING)
                .process(function, Types.STRING)
                .name(ACTION_NAME);
        List<String> collected = new ArrayList<>();
        JobExecutionResult result;
        try (CloseableIterator<String> results = answers.collectAsync()) {
            JobClient client = env.executeAsync("durable-journal agent job");
            results.forEachRemaining(collected::add);
            result = client.getJobExecutionResult().get();
        }
        Collections.sort(collected);
        long wallMillis = (System.nanoTime() - started) / 1_000_000;
        return new Outcome(collected, SideEffectLog.counts(settings.sideEffectLog()), Files.exists(settings.crashFlag()), result,
                wallMillis);
    }

    /** Keys requests by user. */
    public static final class ByUser implements KeySelector<Request, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(Request request) {
            return request.user;
        }
    }
}
