package io.durablejournal.testing;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The Flink MiniCluster a job test runs on: one task manager, started once for the test class
 * (register it as a static {@code @RegisterExtension} field) and used by every
 * {@code StreamExecutionEnvironment.getExecutionEnvironment(...)} of its tests.
 */
public final class MiniClusters {
    private MiniClusters() {}

    /** One task manager with {@code slots} task slots. */
    public static MiniClusterExtension withSlots(int slots) {
        return withSlots(slots, new Configuration());
    }

    /** The same, its metrics reported to {@code reporter} (which keeps them for the assertions). */
    public static MiniClusterExtension withSlots(int slots, InMemoryReporter reporter) {
        return withSlots(slots, reporter.addToConfiguration(new Configuration()));
    }

    private static MiniClusterExtension withSlots(int slots, Configuration configuration) {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setConfiguration(configuration)
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(slots)
                .build());
    }
}
