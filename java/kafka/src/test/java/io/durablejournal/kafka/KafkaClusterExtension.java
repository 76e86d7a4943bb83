package io.durablejournal.kafka;

import io.durablejournal.testing.ServiceExtension;

/**
 * A {@link KafkaCluster} of a test class's own (a controller and {@code brokers} brokers) and the
 * MiniCluster of its jobs, as one static {@code @RegisterExtension} field: the cluster starts before
 * the class's first test (a start costs seconds, so its tests share it and each leaves it whole)
 * and is killed after the last.
 */
final class KafkaClusterExtension extends ServiceExtension {
    private final int brokers;
    private volatile KafkaCluster cluster;

    /** {@code brokers} brokers, and a MiniCluster of one task manager with {@code slots} slots. */
    KafkaClusterExtension(int brokers, int slots) {
        super(slots);
        this.brokers = brokers;
    }

    @Override
    protected void start() throws Exception {
        long started = System.nanoTime();
        cluster = KafkaCluster.start(brokers);
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("[cluster] a controller and %d brokers ready in %.1f s%n", brokers, seconds);
    }

    @Override
    protected void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    /** The started cluster. */
    KafkaCluster cluster() {
        KafkaCluster started = cluster;
        if (started == null) {
            throw new IllegalStateException("the Kafka cluster is started before the test class's first test");
        }
        return started;
    }
}
