package io.durablejournal.kafka;

import io.durablejournal.demo.AgentJob;
import io.durablejournal.flink.ActionStateStoreFactory;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The demo's agent job ({@link AgentJob}) as the Kafka suites run it: {@value #REQUESTS} requests
 * of four users at parallelism 2, three durable calls each, checkpoints every 100 ms; with the
 * staged failover ({@link #failover}), a checkpoint completes before request {@value #GATE} and
 * request {@value #CRASH} crashes once after its second call.
 */
final class DemoJobs {
    static final int REQUESTS = 12;
    static final int GATE = 5;
    static final int CRASH = 7;

    private DemoJobs() {}

    /** The job with the staged failover, its files under {@code workDir}, its journals in {@code stores}. */
    static AgentJob.Settings failover(Path workDir, ActionStateStoreFactory stores) {
        AgentJob.Settings settings = uninterrupted(workDir, stores);
        settings.gateAt = GATE;
        settings.crashAt = CRASH;
        settings.crashAfterCalls = 2;
        return settings;
    }

    /** The job with no gate and no crash. */
    static AgentJob.Settings uninterrupted(Path workDir, ActionStateStoreFactory stores) {
        AgentJob.Settings settings = new AgentJob.Settings();
        settings.workDir = workDir;
        settings.requests = REQUESTS;
        settings.gateAt = -1;
        settings.crashAt = -1;
        settings.parallelism = 2;
        settings.storeFactory = stores;
        return settings;
    }

    /** Runs the job on the test class's MiniCluster, checkpointing every 100 ms. */
    static AgentJob.Outcome run(AgentJob.Settings settings) throws Exception {
        return run(settings, Duration.ofMillis(100));
    }

    /** Runs the job on the test class's MiniCluster, checkpointing every {@code checkpointInterval}. */
    static AgentJob.Outcome run(AgentJob.Settings settings, Duration checkpointInterval) throws Exception {
        return AgentJob.run(StreamExecutionEnvironment.getExecutionEnvironment(AgentJob.flinkConfiguration(checkpointInterval)),
                settings);
    }
}
