package io.durablejournal.kafka;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.plan.AgentConfiguration;
import org.apache.flink.agents.plan.JavaFunction;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.CallResult;
import org.apache.flink.agents.runtime.actionstate.KafkaActionStateStore;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * The Kafka store against a bare {@code kafka-clients} producer and against Flink Agents 0.3.1's
 * {@code KafkaActionStateStore} (the whole ActionState as JSON on every call, then {@code flush}),
 * on one broker in one run. Not a test: it asserts no timing. Run: {@code gradle :kafka:kafkaBench}.
 * <ol>
 *   <li>One call's latency: a durable call of 1 KB on our store, the same record's bytes sent by a
 *       bare producer with the same settings ({@code acks=all}, idempotent) and waited for, and
 *       Flink Agents' put of the state after such a call; the three take turns, so load on the
 *       machine hits them alike.</li>
 *   <li>Throughput on one subtask: 64 actions in flight on 64 threads (what the async operator
 *       runs with {@code maxInFlight} 64), each action 10 durable calls of 1 KB on its own key,
 *       against Flink Agents' store driven as its operator drives it (one put at a time, from the
 *       task thread).</li>
 *   <li>Bytes: actions of n = 10 and 100 calls, the time per action and the bytes each one adds to
 *       its topic (the partition's size on the broker, record batch overhead included). An action
 *       is what an operator persists for it: the initial state, each call's outcome, and the
 *       completion. Rounds alternate the two stores; the table shows the median round.</li>
 * </ol>
 */
public final class KafkaStoreComparison {
    static final int PAYLOAD = 1024;
    private static final int ROUNDS = 3;
    static final byte[] RESULT = new byte[PAYLOAD];

    static {
        new Random(42).nextBytes(RESULT);
    }

    private KafkaStoreComparison() {}

    /** What Flink Agents' Action needs: a method of the right signature (never called here). */
    public static void process(Event event, RunnerContext context) {}

    /** One store measured: a topic of its own, and the actions it ran. */
    private interface Subject extends AutoCloseable {
        void runAction(String key) throws Exception;

        @Override
        void close() throws Exception;
    }

    private static final class Ours implements Subject {
        private final LogActionStateStore store;
        private final int calls;

        Ours(KafkaBroker broker, String topic, int calls) {
            this.store = KafkaActionStateStores.openFresh(broker.config(topic));
            this.calls = calls;
        }

        @Override
        public void runAction(String key) {
            try (DurableExecutionContext journal = store.openContext(key, 0, "process", EventIdentity.rootOccurrence(key, 0), null)) {
                for (int i = 0; i < calls; i++) {
                    journal.recordCallCompletion(String.format("call-%05d", i), RESULT, null);
                }
                journal.markCompleted();
            }
        }

        @Override
        public void close() {
            store.close();
        }
    }

    /** Flink Agents' store on a topic it creates (one partition, replication 1, compacted). */
    static final class Theirs implements Subject {
        final KafkaActionStateStore store;
        final Action action;
        private final int calls;

        Theirs(KafkaBroker broker, String topic, int calls) throws Exception {
            AgentConfiguration conf = new AgentConfiguration();
            conf.setStr("kafkaBootstrapServers", broker.bootstrapServers());
            conf.setStr("kafkaActionStateTopic", topic);
            conf.setInt("kafkaActionStateTopicNumPartitions", 1);
            conf.setInt("kafkaActionStateTopicReplicationFactor", 1);
            this.store = open(conf);
            this.action = new Action("process", new JavaFunction(KafkaStoreComparison.class, "process",
                    new Class<?>[] {Event.class, RunnerContext.class}), List.of(InputEvent.class.getName()));
            this.calls = calls;
        }

        /**
         * Its constructor gives the topic listing 100 ms, which a fresh admin client on a loaded
         * machine can miss: it is tried again (the store is not measured here).
         */
        private static KafkaActionStateStore open(AgentConfiguration conf) {
            for (int attempt = 1; ; attempt++) {
                try {
                    return new KafkaActionStateStore(conf);
                } catch (RuntimeException e) {
                    if (attempt == 20) {
                        throw e;
                    }
                }
            }
        }

        @Override
        public void runAction(String key) throws Exception {
            InputEvent event = new InputEvent("question");
            ActionState state = new ActionState(event);
            store.put(key, 0, action, event, state);
            for (int i = 0; i < calls; i++) {
                state.addCallResult(new CallResult(String.format("call-%05d", i), "", RESULT));
                store.put(key, 0, action, event, state);
            }
            state.markCompleted();
            store.put(key, 0, action, event, state);
        }

        @Override
        public void close() throws Exception {
            store.close();
        }
    }

    private static long topicBytes(Admin admin, String topic) throws Exception {
        Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(1)).allDescriptions().get(30, TimeUnit.SECONDS).get(1);
        TopicPartition partition = new TopicPartition(topic, 0);
        long bytes = 0;
        for (LogDirDescription dir : dirs.values()) {
            if (dir.replicaInfos().containsKey(partition)) {
                bytes += dir.replicaInfos().get(partition).size();
            }
        }
        return bytes;
    }

    /** Mean time per action (µs) and bytes per action of one round of {@code actions} actions. */
    private static double[] round(Subject subject, Admin admin, String topic, int actions) throws Exception {
        long before = topicBytes(admin, topic);
        long started = System.nanoTime();
        for (int i = 0; i < actions; i++) {
            subject.runAction("user-" + UUID.randomUUID());
        }
        double micros = (System.nanoTime() - started) / 1000.0 / actions;
        return new double[] {micros, (double) (topicBytes(admin, topic) - before) / actions};
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    public static void main(String[] args) throws Exception {
        KafkaBroker broker = KafkaBroker.shared();
        System.out.println("Kafka 4.0.0 broker (KRaft, one node) at " + broker.bootstrapServers() + "; " + PAYLOAD
                + " B per call");
        // Parts to run (default all): latency, throughput, restore, semantics, bytes.
        List<String> parts = args.length == 0 ? List.of("latency", "throughput", "restore", "semantics", "bytes") : List.of(args);
        if (parts.contains("latency")) {
            System.out.println();
            KafkaBenchLatency.run(broker);
        }
        if (parts.contains("throughput")) {
            System.out.println();
            KafkaBenchThroughput.run(broker);
        }
        if (parts.contains("restore")) {
            System.out.println();
            KafkaBenchRestore.run(broker);
        }
        if (parts.contains("semantics")) {
            System.out.println();
            KafkaBenchSemantics.run(broker);
        }
        if (!parts.contains("bytes")) {
            System.exit(0);
        }
        System.out.println();
        System.out.println("Bytes per action: median of " + ROUNDS + " rounds after a warm-up round");
        System.out.println();
        System.out.println("| n calls | store | time per action | per call | bytes per action | bytes vs ours |");
        System.out.println("|---|---|---|---|---|---|");
        try (Admin admin = broker.admin()) {
            for (int calls : new int[] {10, 100}) {
                int actions = calls == 10 ? 40 : 6;
                String oursTopic = broker.createTopic("bench-ours-" + calls + "-" + UUID.randomUUID(), 1);
                String theirsTopic = "bench-flink-agents-" + calls + "-" + UUID.randomUUID();
                try (Subject ours = new Ours(broker, oursTopic, calls); Subject theirs = new Theirs(broker, theirsTopic, calls)) {
                    round(ours, admin, oursTopic, actions);
                    round(theirs, admin, theirsTopic, actions);
                    List<Double> oursTime = new ArrayList<>();
                    List<Double> oursBytes = new ArrayList<>();
                    List<Double> theirsTime = new ArrayList<>();
                    List<Double> theirsBytes = new ArrayList<>();
                    for (int r = 0; r < ROUNDS; r++) {
                        double[] o = round(ours, admin, oursTopic, actions);
                        double[] t = round(theirs, admin, theirsTopic, actions);
                        oursTime.add(o[0]);
                        oursBytes.add(o[1]);
                        theirsTime.add(t[0]);
                        theirsBytes.add(t[1]);
                    }
                    print(calls, "durable-journal (delta records)", median(oursTime), median(oursBytes), median(oursBytes));
                    print(calls, "Flink Agents 0.3.1 (whole state)", median(theirsTime), median(theirsBytes), median(oursBytes));
                }
            }
        }
        System.out.println();
        System.out.println("(a round is 40 actions at n = 10 and 6 at n = 100; times are per-round means)");
        System.exit(0);
    }

    private static void print(int calls, String store, double micros, double bytes, double oursBytes) {
        System.out.printf("| %d | %s | %.1f ms | %.2f ms | %,.0f B | %.1fx |%n", calls, store, micros / 1000, micros / 1000 / calls,
                bytes, bytes / oursBytes);
    }
}
