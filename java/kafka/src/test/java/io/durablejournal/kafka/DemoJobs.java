package io.durablejournal.kafka;

import io.durablejournal.demo.AgentJob;
import io.durablejournal.demo.JobSettings;
import io.durablejournal.flink.ActionStateStoreFactory;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The demo's agent job ({@link AgentJob}) as the Kafka suites run it: its defaults ({@value
 * JobSettings#REQUESTS} requests of four users at parallelism 2, three durable calls each), its
 * journals in the test's stores, checkpoints every 100 ms; with the staged failover ({@link
 * #failover}), a checkpoint completes before request {@value JobSettings#GATE} and request {@value
 * JobSettings#CRASH} crashes once after its second call.
 */
final class DemoJobs {
    private DemoJobs() {}

    /** The job with the staged failover, its files under {@code workDir}, its journals in {@code stores}. */
    static AgentJob.Settings failover(Path workDir, ActionStateStoreFactory stores) {
        AgentJob.Settings settings = new AgentJob.Settings(workDir);
        settings.storeFactory = stores;
        return settings;
    }

    /** The job with no gate and no crash. */
    static AgentJob.Settings uninterrupted(Path workDir, ActionStateStoreFactory stores) {
        AgentJob.Settings settings = failover(workDir, stores);
        settings.gateAt = -1;
        settings.crashAt = -1;
        return settings;
    }

    /** Runs the job on the test class's MiniCluster, checkpointing every 100 ms. */
    static AgentJob.Outcome run(AgentJob.Settings settings) throws Exception {
        return AgentJob.run(settings, Duration.ofMillis(100));
    }
}
