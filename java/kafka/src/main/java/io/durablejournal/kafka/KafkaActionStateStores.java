package io.durablejournal.kafka;

import io.durablejournal.JournalException;
import io.durablejournal.store.LogActionStateStore;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.UUID;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Opens Kafka-backed journal stores: the native log-backed store ({@link LogActionStateStore})
 * over a Kafka topic. In a Flink job use {@link #factory}; the operators give each subtask its key
 * groups and restore it from the checkpoint's markers at any parallelism.
 *
 * <p>Opening checks the topic first and refuses one that is missing or would lose journals (see
 * {@code docs/kafka-store.md}). Keys are grouped as Flink groups keyed state ({@code
 * KeyGroupRangeAssignment}, from the key's {@code hashCode()}), so {@code flink-runtime} must be on
 * the classpath, as it is in every Flink job.
 */
public final class KafkaActionStateStores {
    /** Flink's default max parallelism for a job of low parallelism: the key groups of a store used alone. */
    public static final int DEFAULT_MAX_PARALLELISM = 128;

    private KafkaActionStateStores() {}

    /** The factory for {@code DurableActionFunction} and {@code DurableAsyncActions}. */
    public static KafkaStoreFactory factory(KafkaStoreConfig config) {
        return new KafkaStoreFactory(config);
    }

    /**
     * A store owning every key group, starting a new history of its own: for use outside Flink.
     * To resume it elsewhere, open it with {@link #open} and call {@code rebuildState} with its
     * {@code getRecoveryMarker()}.
     */
    public static LogActionStateStore openFresh(KafkaStoreConfig config) {
        LogActionStateStore store = open(config, DEFAULT_MAX_PARALLELISM, 0, DEFAULT_MAX_PARALLELISM - 1);
        try {
            store.startFresh(randomLineage());
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return store;
    }

    /**
     * A store owning key groups {@code firstKeyGroup..lastKeyGroup} of {@code maxParallelism}, with
     * no history yet: call {@code startFresh}, {@code continueHistory} or {@code rebuildState}.
     */
    public static LogActionStateStore open(KafkaStoreConfig config, int maxParallelism, int firstKeyGroup, int lastKeyGroup) {
        KafkaTransport transport;
        try {
            transport = KafkaTransport.open(config);
        } catch (JournalException | IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            Throwable shown = config.redact(e);
            throw new JournalException(JournalException.Code.STORE_IO, "opening " + config + " failed: " + shown, shown);
        }
        LogActionStateStore store = LogActionStateStore.open(transport, maxParallelism, firstKeyGroup, lastKeyGroup,
                key -> KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism));
        KafkaRetention retention = config.retention();
        if (retention != null) {
            try {
                // A store's copies go to the retained partition of its first key group, as its journal's records would.
                int partition = (int) ((long) firstKeyGroup * transport.retainedPartitions() / maxParallelism);
                store.retainCompleted(transport.retainedTopic(), partition, Duration.ofMillis(retention.maxAgeMillis),
                        retention.maxCount, retention.planDigest);
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
        }
        return store;
    }

    static byte[] randomLineage() {
        UUID id = UUID.randomUUID();
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
    }
}
