package io.durablejournal.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/** What both operators' demo jobs do the same way: Flink's configuration and running a job to its end. */
public final class DemoJobs {
    private DemoJobs() {}

    /** A job run to its end: its answers, sorted, and Flink's result. */
    public static final class Finished {
        public final List<String> answers;
        public final JobExecutionResult result;
        public final long wallMillis;

        public Finished(List<String> answers, JobExecutionResult result, long startedNanos) {
            this.answers = new ArrayList<>(answers);
            Collections.sort(this.answers);
            this.result = result;
            this.wallMillis = (System.nanoTime() - startedNanos) / 1_000_000;
        }
    }

    /** Checkpointing every {@code interval} (null: none) and a fixed-delay restart strategy (3 attempts, 50 ms apart). */
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
    public static List<String> expectedAnswers(int requests, IntFunction<String> expectedAnswer) {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            expected.add(expectedAnswer.apply(i));
        }
        Collections.sort(expected);
        return expected;
    }

    /**
     * Runs the job built on {@code env} to its end and collects {@code answers} exactly once
     * (Flink's collect sink, which needs checkpointing to survive a restart).
     */
    public static Finished collectToEnd(StreamExecutionEnvironment env, DataStream<String> answers, String jobName,
            long startedNanos) throws Exception {
        List<String> collected = new ArrayList<>();
        JobExecutionResult result;
        try (CloseableIterator<String> results = answers.collectAsync()) {
            JobClient client = env.executeAsync(jobName);
            results.forEachRemaining(collected::add);
            result = client.getJobExecutionResult().get();
        }
        return new Finished(collected, result, startedNanos);
    }

    /** Builds a demo job of {@code settings} on an environment, runs it to its end and reports. */
    @FunctionalInterface
    public interface Job<S extends JobSettings, O extends JobOutcome> {
        O run(StreamExecutionEnvironment env, S settings) throws Exception;
    }

    /**
     * Runs {@code job} on this JVM's environment (a test's MiniCluster), checkpointing every {@code
     * checkpointInterval} (null: never), and prints its wall time as a {@code [timing]} line.
     */
    public static <S extends JobSettings, O extends JobOutcome> O runLocally(String name, Job<S, O> job, S settings,
            Duration checkpointInterval) throws Exception {
        O outcome = job.run(StreamExecutionEnvironment.getExecutionEnvironment(flinkConfiguration(checkpointInterval)), settings);
        System.out.println("[timing] " + name + " " + (settings.journal ? "with" : "without") + " the journal: "
                + outcome.wallMillis + " ms");
        return outcome;
    }
}
