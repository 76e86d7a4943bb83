package io.durablejournal.kafka;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.CallResult;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Part 2 of {@link KafkaStoreComparison}: durable calls per second on one subtask's store with 64
 * actions in flight, each on its own thread and key (what {@code DurableAsyncActions} with {@code
 * maxInFlight} 64 runs), and Flink Agents' store driven as its operator drives it: one put at a
 * time, from the task thread. An action is 10 calls of 1 KB (plus its initial put and completion).
 */
final class KafkaBenchThroughput {
    private static final int IN_FLIGHT = 64;
    private static final int CALLS_PER_ACTION = 10;
    /**
     * The first measurement warms up long: on a loaded 2-core machine the JIT takes tens of
     * seconds to compile the paths of 64 threads, and calls/s climb until it has.
     */
    private static final long FIRST_WARM_UP_MS = 30_000;
    private static final long WARM_UP_MS = 5_000;
    private static final long MEASURE_MS = 10_000;

    private KafkaBenchThroughput() {}

    /** Calls per second, the calls' latencies (ns) while measuring, and CPU time per call. */
    private static final class Outcome {
        final double callsPerSecond;
        final long[] latencies;
        /** µs of CPU per call in this JVM (the store's and the client's threads) and in the broker. */
        final double clientCpuMicros;
        final double brokerCpuMicros;

        Outcome(double callsPerSecond, long[] latencies, double clientCpuMicros, double brokerCpuMicros) {
            this.callsPerSecond = callsPerSecond;
            this.latencies = latencies;
            this.clientCpuMicros = clientCpuMicros;
            this.brokerCpuMicros = brokerCpuMicros;
        }
    }

    /** Runs actions on {@code threads} threads until stopped, counting calls. */
    private interface Actions {
        void run(String key, AtomicLong calls, LatencyLog latencies) throws Exception;
    }

    /** Latencies of the calls made while measuring (a few per thread are enough for percentiles). */
    private static final class LatencyLog {
        private final long[] samples = new long[200_000];
        private final AtomicLong next = new AtomicLong();
        volatile boolean measuring;

        void add(long nanos) {
            if (measuring) {
                long i = next.getAndIncrement();
                if (i < samples.length) {
                    samples[(int) i] = nanos;
                }
            }
        }

        long[] taken() {
            return java.util.Arrays.copyOf(samples, (int) Math.min(next.get(), samples.length));
        }
    }

    private static Outcome measure(KafkaBroker broker, int threads, long warmUpMs, Actions actions) throws Exception {
        AtomicLong calls = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        LatencyLog latencies = new LatencyLog();
        List<Thread> running = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                try {
                    for (int n = 0; !stop.get(); n++) {
                        actions.run("user-" + thread + "-" + n, calls, latencies);
                    }
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }, "bench-action-" + t);
            worker.start();
            running.add(worker);
        }
        Thread.sleep(warmUpMs); // a benchmark's warm-up period, not a synchronization
        latencies.measuring = true;
        long before = calls.get();
        long clientCpu = ProcessCpu.self();
        long brokerCpu = broker.cpuNanos();
        long started = System.nanoTime();
        Thread.sleep(MEASURE_MS); // the measured period
        long done = calls.get() - before;
        double seconds = (System.nanoTime() - started) / 1e9;
        double clientMicros = (ProcessCpu.self() - clientCpu) / 1000.0 / done;
        double brokerMicros = (broker.cpuNanos() - brokerCpu) / 1000.0 / done;
        latencies.measuring = false;
        stop.set(true);
        for (Thread worker : running) {
            worker.join(TimeUnit.MINUTES.toMillis(3));
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("an action failed", failures.get(0));
        }
        return new Outcome(done / seconds, latencies.taken(), clientMicros, brokerMicros);
    }

    static void run(KafkaBroker broker) throws Exception {
        KafkaStoreConfig config = broker.config(broker.createTopic("bench-throughput-" + UUID.randomUUID(), 1));
        KafkaTransport transport = KafkaTransport.open(config);
        Outcome ours;
        Outcome oursOneAtATime;
        double recordsPerRequest;
        try (LogActionStateStore store = LogActionStateStore.open(transport, KafkaActionStateStores.DEFAULT_MAX_PARALLELISM, 0,
                KafkaActionStateStores.DEFAULT_MAX_PARALLELISM - 1, key -> 0)) {
            store.startFresh(KafkaActionStateStores.randomLineage());
            Actions action = (key, calls, latencies) -> {
                try (DurableExecutionContext journal = store.openContext(key, 0, "process", EventIdentity.rootOccurrence(key, 0),
                        null)) {
                    for (int c = 0; c < CALLS_PER_ACTION; c++) {
                        long started = System.nanoTime();
                        journal.recordCallCompletion(String.format("call-%05d", c), KafkaStoreComparison.RESULT, null);
                        latencies.add(System.nanoTime() - started);
                        calls.incrementAndGet();
                    }
                    journal.markCompleted();
                }
                // As the async operator does once the action's output left it (and a checkpoint completed).
                store.pruneStateAt(key, 0);
            };
            ours = measure(broker, IN_FLIGHT, FIRST_WARM_UP_MS, action);
            oursOneAtATime = measure(broker, 1, WARM_UP_MS, action);
            recordsPerRequest = transport.producerMetric("records-per-request-avg");
        }

        // The ceiling: a bare producer with the same settings, 64 threads each sending one record
        // of a call's size and waiting for it.
        Outcome bare;
        try (KafkaProducer<byte[], byte[]> producer = ByteProducers.open(config.clientProperties(),
                Map.of("acks", "all", "enable.idempotence", "true"))) {
            byte[] key = new byte[70];
            byte[] value = new byte[1160];
            bare = measure(broker, IN_FLIGHT, WARM_UP_MS, (k, calls, latencies) -> {
                for (int c = 0; c < CALLS_PER_ACTION; c++) {
                    long started = System.nanoTime();
                    producer.send(new ProducerRecord<>(config.topic(), 0, key, value)).get();
                    latencies.add(System.nanoTime() - started);
                    calls.incrementAndGet();
                }
            });
        }

        Outcome theirs;
        try (KafkaStoreComparison.Theirs flinkAgents = new KafkaStoreComparison.Theirs(broker,
                "bench-throughput-flink-agents-" + UUID.randomUUID(), CALLS_PER_ACTION)) {
            InputEvent event = new InputEvent("question");
            theirs = measure(broker, 1, WARM_UP_MS, (key, calls, latencies) -> {
                ActionState state = new ActionState(event);
                flinkAgents.store.put(key, 0, flinkAgents.action, event, state);
                for (int c = 0; c < CALLS_PER_ACTION; c++) {
                    state.addCallResult(new CallResult(String.format("call-%05d", c), "", KafkaStoreComparison.RESULT));
                    long started = System.nanoTime();
                    flinkAgents.store.put(key, 0, flinkAgents.action, event, state);
                    latencies.add(System.nanoTime() - started);
                    calls.incrementAndGet();
                }
                state.markCompleted();
                flinkAgents.store.put(key, 0, flinkAgents.action, event, state);
            });
        }

        System.out.println("Durable calls per second on one subtask (actions of " + CALLS_PER_ACTION + " calls of 1 KB, "
                + MEASURE_MS / 1000 + " s each, after " + FIRST_WARM_UP_MS / 1000 + " s to warm up the first and " + WARM_UP_MS / 1000
                + " s the others):");
        System.out.println();
        System.out.println("| store | actions in flight | durable calls/s | call latency median | p99 | CPU per call: client, broker | vs Flink Agents |");
        System.out.println("|---|---|---|---|---|---|---|");
        print("durable-journal Kafka store", IN_FLIGHT, ours, theirs);
        print("durable-journal Kafka store", 1, oursOneAtATime, theirs);
        print("Flink Agents 0.3.1 (one put at a time, as its operator)", 1, theirs, theirs);
        print("bare kafka-clients producer, send().get() of 1.2 KB records (for scale)", IN_FLIGHT, bare, theirs);
        System.out.println();
        System.out.printf("(with %d in flight, our producer sent %.1f records per produce request on average)%n", IN_FLIGHT,
                recordsPerRequest);
    }

    private static void print(String store, int inFlight, Outcome outcome, Outcome theirs) {
        System.out.printf("| %s | %d | %,.0f | %.0f µs | %.0f µs | %.0f µs, %.0f µs | %.1fx |%n", store, inFlight,
                outcome.callsPerSecond, KafkaBenchLatency.percentile(outcome.latencies, 50),
                KafkaBenchLatency.percentile(outcome.latencies, 99), outcome.clientCpuMicros, outcome.brokerCpuMicros,
                outcome.callsPerSecond / theirs.callsPerSecond);
    }
}
