package io.durablejournal.kafka;

import static io.durablejournal.demo.JobSettings.REQUESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.CallResult;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalException;
import io.durablejournal.demo.AgentJob;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.kafka.StagedFaults.Fault;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import io.durablejournal.testing.RepeatedRuns;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka store on a real three-broker KRaft cluster ({@link KafkaCluster}: a controller and
 * three brokers, child JVMs on 127.0.0.1), its topics with replication 3 and {@code
 * min.insync.replicas=2}, under the faults a production cluster has. Each fault hits a stream of
 * durable calls on several keys in flight at once (as async actions make them); afterwards a
 * store restored from the first one's marker must hold exactly the calls that were acknowledged,
 * and the topic no record twice. One cluster serves every case (a start costs seconds); each case
 * leaves it whole again.
 *
 * <p>The same faults also hit the demo's agent job on a MiniCluster (twelve requests, three calls
 * each, parallelism 2, checkpoints every 100 ms), which then fails over: its side effects must
 * run exactly once. Each fault is set off from inside an action, so nothing waits on a clock.
 */
class KafkaClusterFaultTest {
    private static final int MAX_PARALLELISM = KafkaActionStateStores.DEFAULT_MAX_PARALLELISM;
    private static final int KEYS = 6;

    /** A controller and three brokers, and the MiniCluster of the jobs. */
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = new KafkaClusterExtension(3, 4);

    @TempDir
    Path tmp;

    private static KafkaCluster cluster() {
        return KAFKA.cluster();
    }

    private static String newTopic(String name) throws Exception {
        return cluster().createTopic("journal-" + name + "-" + UUID.randomUUID(), 1, 3, Map.of("min.insync.replicas", "2"));
    }

    /** Waits until all three replicas of the topic's partition are in sync again. */
    private static void awaitWhole(String topic) throws Exception {
        cluster().awaitPartition(topic, 0, p -> p.isr().size() == 3, "all 3 replicas in sync");
    }

    private static byte[] payload(String callId) {
        return ("result of " + callId).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Durable calls on {@link #KEYS} keys at once, each key an action on its own thread whose calls
     * follow one another, as the async operator's actions make them. Every call that returned
     * (was acknowledged) is noted, in order.
     */
    private static final class CallStream implements AutoCloseable {
        final Map<String, List<String>> acknowledged = new ConcurrentHashMap<>();
        private final List<Thread> threads = new ArrayList<>();
        private final List<Throwable> failures = new CopyOnWriteArrayList<>();
        private int total;
        private volatile boolean stopping;

        CallStream(LogActionStateStore store) {
            for (int k = 0; k < KEYS; k++) {
                String key = "user-" + k;
                List<String> calls = new CopyOnWriteArrayList<>();
                acknowledged.put(key, calls);
                Thread thread = new Thread(() -> {
                    try (DurableExecutionContext journal = store.openContext(key, 0, "act", EventIdentity.rootOccurrence(key, 0),
                            null)) {
                        for (int i = 0; !stopping; i++) {
                            String id = key + "/call-" + i;
                            journal.recordCallCompletion(id, payload(id), null);
                            calls.add(id);
                            synchronized (this) {
                                total++;
                                notifyAll();
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                        synchronized (this) {
                            notifyAll();
                        }
                    }
                }, "calls of " + key);
                thread.start();
                threads.add(thread);
            }
        }

        synchronized int total() {
            return total;
        }

        /** Waits until {@code n} calls in all were acknowledged; fails on any call's failure. */
        synchronized void awaitAcknowledged(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
            while (total < n) {
                if (!failures.isEmpty()) {
                    throw new AssertionError("a durable call failed", failures.get(0));
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("only " + total + " of " + n + " calls were acknowledged within 4 minutes");
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        /** Lets every action finish the call it is in, then checks none failed. */
        @Override
        public void close() throws InterruptedException {
            stopping = true;
            for (Thread thread : threads) {
                thread.join(TimeUnit.MINUTES.toMillis(4));
            }
            if (!failures.isEmpty()) {
                throw new AssertionError("a durable call failed", failures.get(0));
            }
        }
    }

    /**
     * A store restored from {@code marker} holds exactly the acknowledged calls of every key, in
     * order; and no journal record reached the topic twice.
     */
    private static void assertExactlyTheAcknowledgedCalls(String topic, byte[] marker, Map<String, List<String>> acknowledged) {
        try (LogActionStateStore restored = KafkaActionStateStores.open(cluster().config(topic), MAX_PARALLELISM, 0,
                MAX_PARALLELISM - 1)) {
            restored.rebuildState(List.of(marker));
            for (Map.Entry<String, List<String>> key : acknowledged.entrySet()) {
                ActionState state = restored.get(key.getKey(), 0, "act", EventIdentity.rootOccurrence(key.getKey(), 0));
                List<String> journaled = state.getCallResults().stream().map(CallResult::getFunctionId).collect(Collectors.toList());
                assertEquals(key.getValue(), journaled, "the journal of " + key.getKey() + " holds exactly its acknowledged calls");
                for (CallResult call : state.getCallResults()) {
                    assertEquals(new String(payload(call.getFunctionId()), StandardCharsets.UTF_8),
                            new String(call.getResultPayload(), StandardCharsets.UTF_8));
                }
            }
        }
        Map<String, Integer> twice = cluster().valueRecordsByKey(topic, 1);
        int records = twice.size();
        twice.values().removeIf(n -> n == 1);
        assertEquals(Map.of(), twice, "no journal record reached the topic twice (of " + records + ")");
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void theLeaderKilledWithCallsInFlightLosesNoAcknowledgedCallAndWritesNoneTwice() throws Exception {
        String topic = newTopic("leader-killed");
        int leader = cluster().leaderOf(topic, 0);
        byte[] marker;
        Map<String, List<String>> acknowledged;
        try (LogActionStateStore store = KafkaActionStateStores.openFresh(cluster().config(topic))) {
            try (CallStream calls = new CallStream(store)) {
                calls.awaitAcknowledged(60);
                cluster().kill(leader);
                int atKill = calls.total();
                int newLeader = cluster().awaitPartition(topic, 0, p -> p.leader() != null && p.leader().id() != leader,
                        "a leader other than the killed broker " + leader).leader().id();
                assertNotEquals(leader, newLeader);
                // The calls in flight at the kill, and later ones, are acknowledged by the new leader.
                calls.awaitAcknowledged(atKill + 60);
                acknowledged = calls.acknowledged;
            }
            marker = store.getRecoveryMarker();
        } finally {
            cluster().restart(leader);
        }
        awaitWhole(topic);
        assertExactlyTheAcknowledgedCalls(topic, marker, acknowledged);
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void withTwoFollowersDownACallIsNeverAcknowledgedOnOneCopyItFailsNamingTheCauseAndWorksOnceTheyAreBack() throws Exception {
        String topic = newTopic("isr-below-min");
        KafkaStoreConfig config = cluster().config(topic)
                .with("delivery.timeout.ms", "8000")
                .with("request.timeout.ms", "3000");
        int leader = cluster().leaderOf(topic, 0);
        List<Integer> followers = cluster().followersOf(topic, 0);
        assertEquals(2, followers.size());
        // A topic like it, led by the same broker, for the acks=1 producer the store refuses to be.
        String plain = "plain-" + UUID.randomUUID();
        List<Integer> sameReplicas = new ArrayList<>(List.of(leader));
        sameReplicas.addAll(followers);
        try (Admin admin = cluster().admin()) {
            admin.createTopics(List.of(new NewTopic(plain, Map.of(0, sameReplicas)).configs(Map.of("min.insync.replicas", "2"))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        cluster().awaitPartition(plain, 0, p -> p.isr().size() == 3 && p.leader() != null && p.leader().id() == leader,
                "led by broker " + leader + ", all in sync");
        try (LogActionStateStore store = KafkaActionStateStores.openFresh(config);
                DurableExecutionContext journal = store.openContext("user", 0, "act", EventIdentity.rootOccurrence("user", 0),
                        null)) {
            journal.recordCallCompletion("before", payload("before"), null);
            try {
                for (int follower : followers) {
                    cluster().kill(follower);
                }
                cluster().awaitPartition(topic, 0, p -> p.isr().size() == 1, "the leader alone in sync");
                cluster().awaitPartition(plain, 0, p -> p.isr().size() == 1, "the leader alone in sync");

                JournalException refused = assertThrows(JournalException.class,
                        () -> journal.recordCallCompletion("during", payload("during"), null));
                System.out.println("[isr below min] the durable call failed with: " + refused.getMessage());
                assertSame(JournalException.Code.STORE_IO, refused.getCode());
                assertTrue(refused.getMessage().contains(topic), refused.getMessage());
                assertTrue(refused.getMessage().contains("1 of 3 replicas in sync, below min.insync.replicas=2"),
                        "the error names the cause: " + refused.getMessage());
                assertEquals(1, journal.size(), "the journal undid the call");

                // What the store refuses to be: a producer with acks=1 has a record acknowledged by the
                // same leader alone, on one copy. A store using acks=1 would have returned above.
                assertTrue(acknowledgedWithAcksOne(plain) >= 0, "acks=1 is acknowledged with the followers down");
            } finally {
                for (int follower : followers) {
                    cluster().restart(follower);
                }
            }
            awaitWhole(topic);
            journal.recordCallCompletion("after", payload("after"), null);
            byte[] marker = store.getRecoveryMarker();
            assertExactlyTheAcknowledgedCalls(topic, marker, Map.of("user", List.of("before", "after")));
        }
        assertEquals(leader, cluster().leaderOf(topic, 0), "the leader stayed");
    }

    /** Sends one record with acks=1 and returns its offset. */
    private static long acknowledgedWithAcksOne(String topic) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = ByteProducers.open(cluster().bootstrapServers(), Map.of("acks", "1",
                "enable.idempotence", "false", "delivery.timeout.ms", "8000", "request.timeout.ms", "3000"))) {
            RecordMetadata sent = producer.send(new ProducerRecord<>(topic, 0, "not a journal record".getBytes(StandardCharsets.UTF_8),
                    new byte[] {1})).get(30, TimeUnit.SECONDS);
            return sent.offset();
        }
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void theWholeClusterKilledAndRestartedLosesNoAcknowledgedCallAndWritesNoneTwice() throws Exception {
        String topic = newTopic("cluster-killed");
        byte[] marker;
        Map<String, List<String>> acknowledged;
        try (LogActionStateStore store = KafkaActionStateStores.openFresh(cluster().config(topic)
                .with("delivery.timeout.ms", "240000")
                .with("max.block.ms", "240000"))) {
            try (CallStream calls = new CallStream(store)) {
                calls.awaitAcknowledged(60);
                try {
                    cluster().killAll();
                } finally {
                    cluster().restartAll();
                }
                int atRestart = calls.total();
                // The calls that waited in the producer through the outage, and later ones, are acknowledged.
                calls.awaitAcknowledged(atRestart + 60);
                acknowledged = calls.acknowledged;
            }
            marker = store.getRecoveryMarker();
        }
        awaitWhole(topic);
        assertExactlyTheAcknowledgedCalls(topic, marker, acknowledged);
    }

    @Test
    void topicsWhoseAcknowledgementsOneBrokerCanTakeAwayAreRefused() throws Exception {
        String singleCopy = cluster().createTopic("journal-min-isr-1-" + UUID.randomUUID(), 1, 3, Map.of("min.insync.replicas", "1"));
        IllegalStateException minIsr = assertThrows(IllegalStateException.class,
                () -> KafkaActionStateStores.openFresh(cluster().config(singleCopy)));
        assertTrue(minIsr.getMessage().contains("min.insync.replicas=1 with a replication factor of 3")
                && minIsr.getMessage().contains("set min.insync.replicas=2"), minIsr.getMessage());

        String unclean = cluster().createTopic("journal-unclean-" + UUID.randomUUID(), 1, 3,
                Map.of("min.insync.replicas", "2", "unclean.leader.election.enable", "true"));
        IllegalStateException election = assertThrows(IllegalStateException.class,
                () -> KafkaActionStateStores.openFresh(cluster().config(unclean)));
        assertTrue(election.getMessage().contains("unclean.leader.election.enable=true")
                && election.getMessage().contains("set unclean.leader.election.enable=false"), election.getMessage());
    }

    private AgentJob.Settings jobSettings(String name, ActionStateStoreFactory stores) {
        return DemoJobs.failover(tmp.resolve(name), stores);
    }

    /** Every request answered once, every side effect run once, the crash's calls replayed from the cluster. */
    private static void assertExactlyOnceAfterTheFailover(AgentJob.Outcome outcome) {
        assertTrue(outcome.crashed, "the crash was injected: the job failed over");
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers);
        assertEquals(Map.of(), RepeatedRuns.of(outcome.sideEffects), "no side effect ran twice");
        assertEquals(REQUESTS * 3, outcome.sideEffects.size());
        assertEquals(2, outcome.callsReplayed, "the two calls of the crashed action replayed from the journal");
        assertEquals(1, outcome.actionsResumed);
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aJobWhoseLeaderIsKilledThenFailsOverRunsEverySideEffectOnce() throws Exception {
        String topic = newTopic("job-leader-killed");
        AgentJob.Settings settings = jobSettings("leader-killed", KafkaActionStateStores.factory(cluster().config(topic)));
        // Request req-04's calls are recorded with the leader gone, by the one elected after it.
        Fault fault = new Fault(killing -> {
            int leader = cluster().leaderOf(topic, 0);
            cluster().kill(leader);
            killing.killed.add(leader);
        });
        AgentJob.Outcome outcome;
        try {
            outcome = StagedFaults.runWithFaultBeforeRequest(settings, "req-04", fault);
        } finally {
            for (int killed : fault.killed) {
                cluster().restart(killed);
            }
        }
        awaitWhole(topic);
        assertEquals(1, fault.killed.size(), "the leader was killed mid-run");
        assertExactlyOnceAfterTheFailover(outcome);
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aJobThatOutlivesTheWholeClusterThenFailsOverRunsEverySideEffectOnce() throws Exception {
        String topic = newTopic("job-cluster-killed");
        AgentJob.Settings settings = jobSettings("cluster-killed", KafkaActionStateStores.factory(cluster().config(topic)
                .with("delivery.timeout.ms", "240000")
                .with("max.block.ms", "240000")));
        // Request req-04's calls wait in the producer until the cluster is back.
        Fault fault = new Fault(killing -> {
            cluster().killAll();
            StagedFaults.inBackground("restart the test cluster", killing, restarting -> cluster().restartAll());
        });
        AgentJob.Outcome outcome = StagedFaults.runWithFaultBeforeRequest(settings, "req-04", fault);
        assertTrue(fault.done, "the cluster was killed mid-run");
        assertEquals(null, fault.restartFailure);
        awaitWhole(topic);
        assertExactlyOnceAfterTheFailover(outcome);
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aJobWhoseCallCannotBeAcknowledgedOnTwoCopiesFailsClearlyAndRecoversOnceTheFollowersAreBack() throws Exception {
        String topic = newTopic("job-isr-below-min");
        AgentJob.Settings settings = DemoJobs.uninterrupted(tmp.resolve("isr-below-min"),
                KafkaActionStateStores.factory(cluster().config(topic)
                        .with("delivery.timeout.ms", "8000")
                        .with("request.timeout.ms", "3000")));
        // One subtask: only the call that is completing meets the followers down.
        settings.parallelism = 1;
        // The ticket of req-04 kills both followers once it is opened, so its completion cannot be
        // acknowledged on two copies; the agent brings the followers back and fails the action.
        Fault fault = new Fault(killing -> {
            for (int follower : cluster().followersOf(topic, 0)) {
                cluster().kill(follower);
                killing.killed.add(follower);
            }
            cluster().awaitPartition(topic, 0, p -> p.isr().size() == 1, "the leader alone in sync");
        }, recovering -> {
            for (int follower : recovering.killed) {
                cluster().restart(follower);
            }
            awaitWhole(topic);
        });
        AgentJob.Outcome outcome = StagedFaults.runWithFaultWhenACallCompletes(settings, "req-04", fault);

        JournalException failure = fault.callFailure;
        assertTrue(failure != null, "the ticket call of req-04 failed");
        assertSame(JournalException.Code.STORE_IO, failure.getCode());
        assertTrue(failure.getMessage().contains("1 of 3 replicas in sync, below min.insync.replicas=2"), failure.getMessage());
        assertEquals("PENDING", fault.slotAfterFailure[1], "the journal kept the call as it was before its completion failed");
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers, "the job recovered and answered everything");
        assertEquals(0, outcome.duplicateSideEffects(), "no call ran twice: " + outcome.sideEffects);
        // The completion's fate is Kafka's to decide, and both fates are exactly once: a leader that has
        // not yet applied the shrunken in-sync set appends the record and then refuses to acknowledge it
        // (NOT_ENOUGH_REPLICAS_AFTER_APPEND); once the followers are back they copy it and it is
        // committed, so the restart replays the completed call. A leader that has applied it refuses
        // before appending, and the restart finds the call still pending and reconciles it. Either
        // way the ticket was never opened twice (asserted above).
        assertTrue(fault.reconciled == 0 || fault.reconciled == 1,
                "the ticket was reconciled at most once, not opened again: " + fault.reconciled);
    }
}
