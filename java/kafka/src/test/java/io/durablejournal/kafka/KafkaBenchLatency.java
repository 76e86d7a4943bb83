package io.durablejournal.kafka;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import io.durablejournal.store.LogTransport;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.CallResult;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Part 1 of {@link KafkaStoreComparison}: one durable call's latency on our store, the round trip
 * of a bare producer sending the very record that call wrote (same key, same value, same
 * partition, {@code acks=all}, idempotent, {@code linger.ms=0}), and Flink Agents' put after a
 * call. The three take turns, call by call, so the machine's load falls on them alike.
 */
final class KafkaBenchLatency {
    private static final int CALLS_PER_ACTION = 10;
    private static final int WARM_UP = 1_500;
    private static final int SAMPLES = 3_000;

    private KafkaBenchLatency() {}

    /** Our store's transport, remembering the last record it sent so the bare producer can send it too. */
    static final class Recording implements LogTransport {
        private final KafkaTransport kafka;
        volatile byte[] lastKey;
        volatile byte[] lastValue;
        volatile int lastPartition;

        Recording(KafkaTransport kafka) {
            this.kafka = kafka;
        }

        @Override
        public Appending submit(int[] partitions, byte[][] keys, byte[][] values) throws Exception {
            int last = keys.length - 1;
            lastKey = keys[last];
            lastValue = values[last];
            lastPartition = partitions[last];
            return kafka.submit(partitions, keys, values);
        }

        @Override
        public long[] append(int[] partitions, byte[][] keys, byte[][] values) throws Exception {
            return submit(partitions, keys, values).await();
        }

        @Override
        public String name() {
            return kafka.name();
        }

        @Override
        public byte[] logId() {
            return kafka.logId();
        }

        @Override
        public int partitions() {
            return kafka.partitions();
        }

        @Override
        public long[] endOffsets() throws Exception {
            return kafka.endOffsets();
        }

        @Override
        public void read(int partition, long endOffset, RecordBatches records) throws Exception {
            kafka.read(partition, endOffset, records);
        }

        @Override
        public void close() {
            kafka.close();
        }
    }

    static void run(KafkaBroker broker) throws Exception {
        String topic = broker.createTopic("bench-latency-" + UUID.randomUUID(), 1);
        KafkaStoreConfig config = broker.config(topic);
        Recording recording = new Recording(KafkaTransport.open(config));
        long[] ours = new long[SAMPLES];
        long[] bare = new long[SAMPLES];
        long[] theirs = new long[SAMPLES];
        int recordBytes;
        try (LogActionStateStore store = LogActionStateStore.open(recording, KafkaActionStateStores.DEFAULT_MAX_PARALLELISM, 0,
                        KafkaActionStateStores.DEFAULT_MAX_PARALLELISM - 1, key -> 0);
                KafkaProducer<byte[], byte[]> producer = ByteProducers.open(config.clientProperties(),
                        Map.of("acks", "all", "enable.idempotence", "true"));
                KafkaStoreComparison.Theirs flinkAgents = new KafkaStoreComparison.Theirs(broker,
                        "bench-latency-flink-agents-" + UUID.randomUUID(), CALLS_PER_ACTION)) {
            store.startFresh(KafkaActionStateStores.randomLineage());
            DurableExecutionContext journal = null;
            InputEvent event = new InputEvent("question");
            ActionState state = null;
            String key = null;
            for (int i = 0; i < WARM_UP + SAMPLES; i++) {
                int call = i % CALLS_PER_ACTION;
                if (call == 0) {
                    if (journal != null) {
                        journal.markCompleted();
                        journal.close();
                        store.pruneStateAt(key, 0);
                    }
                    key = "user-" + i;
                    journal = store.openContext(key, 0, "process", EventIdentity.rootOccurrence(key, 0), null);
                    state = new ActionState(event);
                    flinkAgents.store.put(key, 0, flinkAgents.action, event, state);
                }
                String id = String.format("call-%05d", call);
                long started = System.nanoTime();
                journal.recordCallCompletion(id, KafkaStoreComparison.RESULT, null);
                long oursNanos = System.nanoTime() - started;

                ProducerRecord<byte[], byte[]> same = new ProducerRecord<>(topic, recording.lastPartition, recording.lastKey,
                        recording.lastValue);
                started = System.nanoTime();
                producer.send(same).get();
                long bareNanos = System.nanoTime() - started;

                state.addCallResult(new CallResult(id, "", KafkaStoreComparison.RESULT));
                started = System.nanoTime();
                flinkAgents.store.put(key, 0, flinkAgents.action, event, state);
                long theirsNanos = System.nanoTime() - started;
                if (i >= WARM_UP) {
                    ours[i - WARM_UP] = oursNanos;
                    bare[i - WARM_UP] = bareNanos;
                    theirs[i - WARM_UP] = theirsNanos;
                }
            }
            recordBytes = recording.lastKey.length + recording.lastValue.length;
        }
        double bareMedian = percentile(bare, 50);
        System.out.println("One durable call of 1 KB (" + SAMPLES + " calls each, taking turns, after " + WARM_UP
                + " to warm up; a call's record is " + recordBytes + " B, key and value):");
        System.out.println();
        System.out.println("| what | median | p10 | p90 | p99 | median vs bare producer |");
        System.out.println("|---|---|---|---|---|---|");
        print("bare kafka-clients producer, the same record (acks=all, idempotent)", bare, bareMedian);
        print("durable-journal Kafka store, one durable call", ours, bareMedian);
        print("Flink Agents 0.3.1, its put after a call (whole state, then flush)", theirs, bareMedian);
    }

    static double percentile(long[] nanos, int percent) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * percent / 100)] / 1000.0;
    }

    private static void print(String what, long[] nanos, double bareMedian) {
        double median = percentile(nanos, 50);
        System.out.printf("| %s | %.0f µs | %.0f µs | %.0f µs | %.0f µs | %.2fx |%n", what, median, percentile(nanos, 10),
                percentile(nanos, 90), percentile(nanos, 99), median / bareMedian);
    }
}
