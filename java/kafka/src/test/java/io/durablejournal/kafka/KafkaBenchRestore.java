package io.durablejournal.kafka;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Part 4 of {@link KafkaStoreComparison}: restore time with 1,000,000 dead records in the topic
 * (an earlier job's history, written ahead of the live job's) against an empty topic, the live job
 * the same in both: 100 actions in flight across the checkpoint (10 calls of 100 B each). A restore
 * reads from the smallest start its markers name; for scale, also a restore that reads the
 * partition from offset 0, as every restore did before markers had starts (a version 1 marker).
 */
final class KafkaBenchRestore {
    private static final int DEAD_RECORDS = 1_000_000;
    private static final int LIVE_ACTIONS = 100;
    private static final int CALLS = 10;
    private static final int ROUNDS = 3;
    private static final byte[] RESULT = new byte[100];

    private KafkaBenchRestore() {}

    static void run(KafkaBroker broker) throws Exception {
        String empty = broker.createTopic("bench-restore-empty-" + UUID.randomUUID(), 1);
        String aged = broker.createTopic("bench-restore-aged-" + UUID.randomUUID(), 1);
        long started = System.nanoTime();
        writeDeadRecords(broker, aged);
        System.out.printf("(wrote %,d dead records in %.1f s)%n", DEAD_RECORDS, (System.nanoTime() - started) / 1e9);
        byte[] emptyMarker = liveJob(broker, empty);
        byte[] agedMarker = liveJob(broker, aged);

        System.out.println();
        System.out.println("Restore of " + LIVE_ACTIONS + " actions in flight (" + CALLS + " calls of " + RESULT.length
                + " B each), median of " + ROUNDS + ":");
        System.out.println();
        System.out.println("| topic | reads from | restore time | journal records applied |");
        System.out.println("|---|---|---|---|");
        print("empty but for the live job", "the markers' start", restore(broker, empty, emptyMarker));
        print(String.format("%,d dead records, then the live job", DEAD_RECORDS), "the markers' start",
                restore(broker, aged, agedMarker));
        print(String.format("%,d dead records, then the live job", DEAD_RECORDS), "offset 0 (a version 1 marker, as before)",
                restore(broker, aged, versionOne(agedMarker)));
    }

    /**
     * An earlier job's history: a real call record's key and value, its lineage replaced by the
     * earlier job's and its ordinal made unique, written in big batches.
     */
    private static void writeDeadRecords(KafkaBroker broker, String topic) throws Exception {
        KafkaStoreConfig config = broker.config(topic);
        KafkaBenchLatency.Recording recording = new KafkaBenchLatency.Recording(KafkaTransport.open(config));
        try (LogActionStateStore store = LogActionStateStore.open(recording, KafkaActionStateStores.DEFAULT_MAX_PARALLELISM, 0,
                KafkaActionStateStores.DEFAULT_MAX_PARALLELISM - 1, key -> 0)) {
            store.startFresh(KafkaActionStateStores.randomLineage());
            try (DurableExecutionContext journal = store.openContext("template", 0, "act", EventIdentity.rootOccurrence("template", 0),
                    null)) {
                journal.recordCallCompletion("call", RESULT, null);
            }
        }
        byte[] key = recording.lastKey.clone();
        byte[] value = recording.lastValue;
        byte[] earlierJob = KafkaActionStateStores.randomLineage();
        System.arraycopy(earlierJob, 0, key, 1, 16);
        try (KafkaProducer<byte[], byte[]> producer = ByteProducers.open(broker.bootstrapServers(),
                Map.of("acks", "1", "linger.ms", "20", "batch.size", "524288"))) {
            for (int i = 0; i < DEAD_RECORDS; i++) {
                byte[] unique = key.clone();
                ByteBuffer.wrap(unique, unique.length - 8, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(i);
                producer.send(new ProducerRecord<>(topic, 0, unique, value));
            }
            producer.flush();
        }
    }

    /** A job with {@link #LIVE_ACTIONS} actions in flight at its checkpoint: their marker. */
    private static byte[] liveJob(KafkaBroker broker, String topic) {
        try (LogActionStateStore store = KafkaActionStateStores.openFresh(broker.config(topic))) {
            List<DurableExecutionContext> journals = new ArrayList<>();
            for (int a = 0; a < LIVE_ACTIONS; a++) {
                String key = "user-" + a;
                DurableExecutionContext journal = store.openContext(key, 0, "act", EventIdentity.rootOccurrence(key, 0), null);
                for (int c = 0; c < CALLS; c++) {
                    journal.recordCallCompletion("call-" + c, RESULT, null);
                }
                journals.add(journal);
            }
            byte[] marker = store.getRecoveryMarker();
            journals.forEach(DurableExecutionContext::close);
            return marker;
        }
    }

    /** Median restore time (ms) and the records it read. */
    private static double[] restore(KafkaBroker broker, String topic, byte[] marker) {
        double[] millis = new double[ROUNDS];
        long read = 0;
        for (int r = 0; r < ROUNDS; r++) {
            try (LogActionStateStore store = KafkaActionStateStores.open(broker.config(topic),
                    KafkaActionStateStores.DEFAULT_MAX_PARALLELISM, 0, KafkaActionStateStores.DEFAULT_MAX_PARALLELISM - 1)) {
                long started = System.nanoTime();
                store.rebuildState(List.of(marker));
                millis[r] = (System.nanoTime() - started) / 1e6;
                if (store.liveEntries() != LIVE_ACTIONS) {
                    throw new IllegalStateException("restored " + store.liveEntries() + " entries, not " + LIVE_ACTIONS);
                }
                read = store.stats().recordsLoaded();
            }
        }
        Arrays.sort(millis);
        return new double[] {millis[ROUNDS / 2], read};
    }

    /** The same marker in version 1 (positions only): a restore from it reads from offset 0. */
    private static byte[] versionOne(byte[] marker) {
        int header = 4 + 1 + 16 + 16 + 4 + 4;
        int partitions = (marker.length - header) / 16;
        ByteBuffer out = ByteBuffer.allocate(header + partitions * 8);
        out.put(marker, 0, header);
        out.put(4, (byte) 1);
        for (int p = 0; p < partitions; p++) {
            out.put(marker, header + p * 16, 8);
        }
        return out.array();
    }

    private static void print(String topic, String from, double[] outcome) {
        System.out.printf("| %s | %s | %.0f ms | %,.0f |%n", topic, from, outcome[0], outcome[1]);
    }
}
