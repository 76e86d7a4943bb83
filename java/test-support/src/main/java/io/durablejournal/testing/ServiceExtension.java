package io.durablejournal.testing;

import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A service a test class needs besides Flink (a Kafka broker, a Kafka cluster), started before the
 * class's first test and stopped after its last, and, for a class that runs jobs against it, the
 * Flink MiniCluster they run on: one static {@code @RegisterExtension} field for both, as
 * flink-connector-kafka's test environments bundle the broker with the cluster. Subclasses say
 * how the service starts and stops.
 */
public abstract class ServiceExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    /** The MiniCluster of the class's jobs; null for a class that runs none. */
    private final MiniClusterExtension flink;

    /** With a MiniCluster of one task manager with {@code slots} slots; none when {@code slots} is 0. */
    protected ServiceExtension(int slots) {
        this(slots > 0 ? MiniClusters.withSlots(slots) : null);
    }

    /** With {@code flink} as the class's MiniCluster (null: none). */
    protected ServiceExtension(MiniClusterExtension flink) {
        this.flink = flink;
    }

    /** Starts the service (before the MiniCluster). */
    protected abstract void start() throws Exception;

    /** Stops the service (after the MiniCluster); by default nothing: a service shared by the JVM. */
    protected void stop() throws Exception {}

    @Override
    public final void beforeAll(ExtensionContext context) throws Exception {
        start();
        if (flink != null) {
            flink.beforeAll(context);
        }
    }

    @Override
    public final void beforeEach(ExtensionContext context) throws Exception {
        if (flink != null) {
            flink.beforeEach(context);
        }
    }

    @Override
    public final void afterEach(ExtensionContext context) throws Exception {
        if (flink != null) {
            flink.afterEach(context);
        }
    }

    @Override
    public final void afterAll(ExtensionContext context) throws Exception {
        try {
            if (flink != null) {
                flink.afterAll(context);
            }
        } finally {
            stop();
        }
    }
}
