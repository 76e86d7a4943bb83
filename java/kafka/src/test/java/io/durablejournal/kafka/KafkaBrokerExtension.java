package io.durablejournal.kafka;

import io.durablejournal.testing.ServiceExtension;

/**
 * The test JVM's Kafka broker ({@link KafkaBroker#shared()}) for a test class, as one static
 * {@code @RegisterExtension} field: started before the class's first test (once per JVM, stopped
 * when the JVM exits), with the MiniCluster of the class's jobs for a job test ({@link #withFlink}).
 * The jobs' functions reach the broker through the static field too.
 */
final class KafkaBrokerExtension extends ServiceExtension {
    private volatile KafkaBroker broker;

    private KafkaBrokerExtension(int slots) {
        super(slots);
    }

    /** The broker alone. */
    static KafkaBrokerExtension brokerOnly() {
        return new KafkaBrokerExtension(0);
    }

    /** The broker and a MiniCluster of one task manager with {@code slots} slots. */
    static KafkaBrokerExtension withFlink(int slots) {
        return new KafkaBrokerExtension(slots);
    }

    @Override
    protected void start() throws Exception {
        broker = KafkaBroker.shared();
    }

    /** The started broker. */
    KafkaBroker broker() {
        KafkaBroker started = broker;
        if (started == null) {
            throw new IllegalStateException("the Kafka broker is started before the test class's first test");
        }
        return started;
    }
}
