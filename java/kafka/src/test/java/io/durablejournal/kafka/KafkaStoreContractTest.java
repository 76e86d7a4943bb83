package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalException;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.ActionStateStoreContract;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Kafka-backed store on a real broker: the store contract ({@link ActionStateStoreContract},
 * what every store promises), each case on a topic of its own, and what the Kafka store adds
 * (records the broker acknowledged before a call returns, restores that read from their marker's
 * start and at another parallelism, one history per job, tombstones and compaction, topics that
 * would lose journals refused at start).
 */
class KafkaStoreContractTest extends ActionStateStoreContract {
    private static final int MAX_PARALLELISM = KafkaActionStateStores.DEFAULT_MAX_PARALLELISM;
    private static KafkaBroker broker;

    /** The topic of the contract case's store. */
    private String contractTopic;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaBroker.shared();
    }

    @Override
    protected ActionStateStore openNew() throws Exception {
        contractTopic = newTopic(3);
        return KafkaActionStateStores.openFresh(broker.config(contractTopic));
    }

    @Override
    protected ActionStateStore restore(ActionStateStore store, List<byte[]> markers) {
        store.close();
        return restored(contractTopic, 0, MAX_PARALLELISM - 1, markers);
    }

    /** The producer's max.request.size bounds a record here: the topic's default max.message.bytes is larger. */
    @Override
    protected long maxRecordBytes() {
        return KafkaRecordLimit.of(broker.config(contractTopic), Long.MAX_VALUE).maxRecordBytes;
    }

    private static String newTopic(int partitions) throws Exception {
        return broker.createTopic("journal-" + UUID.randomUUID(), partitions);
    }

    private LogActionStateStore fresh(String topic) {
        return track(KafkaActionStateStores.openFresh(broker.config(topic)));
    }

    /** A store of {@code topic} owning key groups {@code first..last}, restored from {@code markers}. */
    private LogActionStateStore restored(String topic, int first, int last, List<byte[]> markers) {
        LogActionStateStore store = track(KafkaActionStateStores.open(broker.config(topic), MAX_PARALLELISM, first, last));
        store.rebuildState(markers);
        return store;
    }

    private static EventIdentity event(Object key, long seq) {
        return EventIdentity.rootOccurrence(key, seq);
    }

    private static long endOffset(String topic, int partition) throws Exception {
        try (Admin admin = broker.admin()) {
            TopicPartition tp = new TopicPartition(topic, partition);
            return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
        }
    }

    /** Runs an action of {@code calls} durable calls over the store's journal for (key, seq); returns the results. */
    private static List<String> runAction(LogActionStateStore store, Object key, long seq, int calls, AtomicInteger executions)
            throws Exception {
        List<String> results = new ArrayList<>();
        try (DurableExecutionContext journal = store.openContext(key, seq, "act", event(key, seq), null)) {
            RunnerContextImpl ctx = new RunnerContextImpl(journal);
            for (int i = 0; i < calls; i++) {
                int call = i;
                results.add(ctx.durableExecute(DurableCallable.of("tool-call:" + call, String.class,
                        () -> "result " + call + " of run " + executions.incrementAndGet())));
            }
        }
        return results;
    }

    @Test
    void aRestoreReadsFromWhereItsMarkerSaysNotFromOffsetZero() throws Exception {
        String topic = newTopic(1);
        LogActionStateStore first = fresh(topic);
        // Forty actions that completed and were pruned: 4 records and 4 tombstones each, all dead.
        for (int i = 0; i < 40; i++) {
            String key = "done-" + i;
            try (DurableExecutionContext journal = first.openContext(key, 0, "act", event(key, 0), null)) {
                journal.recordCallCompletion("a", new byte[] {1}, null);
                journal.recordCallCompletion("b", new byte[] {2}, null);
                journal.markCompleted();
            }
            first.pruneStateAt(key, 0);
        }
        // One action in flight at the checkpoint: its put and one call.
        DurableExecutionContext live = first.openContext("live", 0, "act", event("live", 0), null);
        live.recordCallCompletion("c", new byte[] {3}, null);
        byte[] marker = first.getRecoveryMarker();
        live.close();

        LogActionStateStore restored = restored(topic, 0, MAX_PARALLELISM - 1, List.of(marker));
        assertEquals(2, restored.stats().recordsLoaded(), "the live action's two records, none of the 320 before them");
        assertEquals(1, restored.get("live", 0, "act", event("live", 0)).getCallResults().size());
        assertNull(restored.get("done-39", 0, "act", event("done-39", 0)));
    }

    @Test
    void everyDurableCallIsOneRecordTheBrokerAcknowledgedBeforeTheCallReturns() throws Exception {
        String topic = newTopic(1);
        LogActionStateStore store = fresh(topic);
        try (DurableExecutionContext journal = store.openContext("user-1", 0, "act", event("user-1", 0), null)) {
            assertEquals(1, endOffset(topic, 0), "the initial put");
            RunnerContextImpl ctx = new RunnerContextImpl(journal);
            for (int i = 1; i <= 3; i++) {
                int call = i;
                ctx.durableExecute(DurableCallable.of("tool-call:" + call, String.class, () -> "r" + call));
                assertEquals(1 + i, endOffset(topic, 0), "call " + i + " is in the topic when durableExecute returns");
            }
        }
        assertEquals(4, store.stats().recordsAppended());
        assertTrue(store.bytesAppended() > 0);
        assertEquals(store.stats().bytesAppended(), store.bytesAppended(), "what the operators report as storeBytesAppended");
    }

    /**
     * A topic with max.message.bytes=20000: a call whose record the broker would refuse is refused
     * by the store before anything is sent (SIZE_LIMIT_EXCEEDED naming the setting), the store goes
     * on, and the largest record the store lets through is one the broker acknowledges.
     */
    @Test
    void aRecordTheTopicWouldRefuseIsRefusedBeforeItIsSentNamingTheSetting() throws Exception {
        String topic = broker.createTopic("journal-" + UUID.randomUUID(), 1, Map.of("max.message.bytes", "20000"));
        LogActionStateStore store = fresh(topic);
        try (DurableExecutionContext journal = store.openContext("user-1", 0, "act", event("user-1", 0), null)) {
            RunnerContextImpl ctx = new RunnerContextImpl(journal);
            ctx.durableExecute(DurableCallable.of("tool-call:small", String.class, () -> "small"));
            assertEquals(2, endOffset(topic, 0));
            int size = 20_000;
            JournalException refused = null;
            while (true) {
                String result = "y".repeat(size);
                try {
                    ctx.durableExecute(DurableCallable.of("tool-call:" + size, String.class, () -> result));
                    break;
                } catch (JournalException e) {
                    refused = e;
                    assertEquals(JournalException.Code.SIZE_LIMIT_EXCEEDED, e.getCode(), e.getMessage());
                    assertEquals(2, endOffset(topic, 0), "nothing was sent");
                    size--;
                }
            }
            assertTrue(refused != null, "a 20000-byte result does not fit a 20000-byte batch");
            String message = refused.getMessage();
            assertTrue(message.contains("max.message.bytes=20000 of topic '" + topic + "'"), message);
            assertTrue(message.contains("over the limit of 19911 bytes"), message);
            assertEquals(3, endOffset(topic, 0), "the largest record the store allows was acknowledged by the broker");
            ctx.durableExecute(DurableCallable.of("tool-call:after", String.class, () -> "after"));
            assertEquals(4, endOffset(topic, 0), "the store goes on");
        }
    }

    @Test
    void pruneDropsEntriesAndAppendsTombstonesForTheirRecords() throws Exception {
        String topic = newTopic(1);
        LogActionStateStore store = fresh(topic);
        AtomicInteger executions = new AtomicInteger();
        for (long seq = 0; seq < 3; seq++) {
            runAction(store, "user", seq, 2, executions);
        }
        store.pruneState("user", 1);
        assertEquals(1, store.stats().entries());
        assertEquals(6, store.stats().tombstonesPending(), "a tombstone for each of the 3 records (put, 2 calls) of 2 entries");
        byte[] marker = store.getRecoveryMarker();
        assertEquals(0, store.stats().tombstonesPending(), "the marker covers them");
        assertEquals(9 + 6, endOffset(topic, 0));
        store.pruneStateAt("user", 2);
        store.sync();
        assertEquals(9 + 6 + 3, endOffset(topic, 0));

        LogActionStateStore back = restored(topic, 0, MAX_PARALLELISM - 1, List.of(marker));
        assertEquals(0, back.stats().entries(), "nothing pruned comes back");
    }

    /** The key groups of {@code subtask} of {@code parallelism} subtasks. */
    private static KeyGroupRange range(int parallelism, int subtask) {
        return KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(MAX_PARALLELISM, parallelism, subtask);
    }

    /** Writes one journal per user from the stores of {@code parallelism} subtasks of one history; returns their markers. */
    private List<byte[]> writeAsSubtasks(String topic, int parallelism, List<String> users, byte[] lineage) throws Exception {
        List<byte[]> markers = new ArrayList<>();
        for (int subtask = 0; subtask < parallelism; subtask++) {
            KeyGroupRange range = range(parallelism, subtask);
            try (LogActionStateStore store = KafkaActionStateStores.open(broker.config(topic), MAX_PARALLELISM,
                    range.getStartKeyGroup(), range.getEndKeyGroup())) {
                store.startFresh(lineage);
                for (String user : users) {
                    if (range.contains(KeyGroupRangeAssignment.assignToKeyGroup(user, MAX_PARALLELISM))) {
                        runAction(store, user, 0, 1, new AtomicInteger());
                    }
                }
                markers.add(store.getRecoveryMarker());
            }
        }
        return markers;
    }

    @Test
    void aRescaledRestoreGivesEveryStoreTheJournalsOfTheKeyGroupsItNowOwns() throws Exception {
        String topic = newTopic(4);
        List<String> users = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            users.add("user-" + i);
        }
        List<byte[]> markers = writeAsSubtasks(topic, 2, users, KafkaActionStateStores.randomLineage());
        for (int parallelism : new int[] {3, 1}) {
            long total = 0;
            for (int subtask = 0; subtask < parallelism; subtask++) {
                KeyGroupRange range = range(parallelism, subtask);
                LogActionStateStore store = restored(topic, range.getStartKeyGroup(), range.getEndKeyGroup(), markers);
                long owned = users.stream().filter(u -> range.contains(KeyGroupRangeAssignment.assignToKeyGroup(u, MAX_PARALLELISM))).count();
                assertTrue(owned > 0);
                assertEquals(owned, store.stats().entries(), "subtask " + subtask + " of " + parallelism + " loads its keys only");
                for (String user : users) {
                    if (range.contains(KeyGroupRangeAssignment.assignToKeyGroup(user, MAX_PARALLELISM))) {
                        AtomicInteger executions = new AtomicInteger();
                        runAction(store, user, 0, 1, executions);
                        assertEquals(0, executions.get(), user + " finds its journal at parallelism " + parallelism);
                    }
                }
                total += store.stats().entries();
            }
            assertEquals(users.size(), total, "together the stores hold every journal, once");
        }
    }

    @Test
    void markersOfTwoHistoriesAreRefused() throws Exception {
        String topic = newTopic(2);
        List<byte[]> markers = new ArrayList<>(writeAsSubtasks(topic, 1, List.of("a"), KafkaActionStateStores.randomLineage()));
        markers.addAll(writeAsSubtasks(topic, 1, List.of("b"), KafkaActionStateStores.randomLineage()));
        JournalException mixed = assertThrows(JournalException.class, () -> restored(topic, 0, MAX_PARALLELISM - 1, markers));
        assertEquals(JournalException.Code.ILLEGAL_STATE, mixed.getCode());
        assertTrue(mixed.getMessage().contains("two histories"), mixed.getMessage());
    }

    @Test
    void aFreshHistoryNeverReadsAnotherJobsJournals() throws Exception {
        String topic = newTopic(1);
        AtomicInteger executions = new AtomicInteger();
        byte[] earlierMarker;
        try (LogActionStateStore earlier = KafkaActionStateStores.openFresh(broker.config(topic))) {
            runAction(earlier, "user", 0, 2, executions);
            earlierMarker = earlier.getRecoveryMarker();
        }
        LogActionStateStore later = fresh(topic);
        assertEquals(0, later.liveEntries(), "a first start holds no entry of an earlier run, so the operators start it");
        assertNull(later.get("user", 0, "act", event("user", 0)), "the earlier job's entry is not this job's");
        runAction(later, "user", 0, 2, executions);
        assertEquals(4, executions.get());
        LogActionStateStore earlierAgain = restored(topic, 0, MAX_PARALLELISM - 1, List.of(earlierMarker));
        assertEquals(1, earlierAgain.stats().entries(), "the earlier history is still there for its own restore");
        assertEquals(1, earlierAgain.liveEntries());
        assertEquals(List.of("result 0 of run 1", "result 1 of run 2"), runAction(earlierAgain, "user", 0, 2, executions));
    }

    @Test
    void aTopicThatWouldLoseOrRefuseJournalsIsRefusedAtStart() throws Exception {
        String missing = "journal-missing-" + UUID.randomUUID();
        IllegalStateException absent = assertThrows(IllegalStateException.class,
                () -> KafkaActionStateStores.openFresh(broker.config(missing)));
        assertTrue(absent.getMessage().contains("does not exist") && absent.getMessage().contains(missing), absent.getMessage());

        String deleting = broker.createTopic("journal-" + UUID.randomUUID(), 1, Map.of("cleanup.policy", "delete"));
        IllegalStateException retention = assertThrows(IllegalStateException.class,
                () -> KafkaActionStateStores.openFresh(broker.config(deleting)));
        assertTrue(retention.getMessage().contains("cleanup.policy=delete"), retention.getMessage());

        String both = broker.createTopic("journal-" + UUID.randomUUID(), 1, Map.of("cleanup.policy", "compact,delete"));
        IllegalStateException timed = assertThrows(IllegalStateException.class,
                () -> KafkaActionStateStores.openFresh(broker.config(both)));
        assertTrue(timed.getMessage().contains("retention.ms=604800000"), timed.getMessage());
        String forever = broker.createTopic("journal-" + UUID.randomUUID(), 1,
                Map.of("cleanup.policy", "compact,delete", "retention.ms", "-1", "retention.bytes", "-1"));
        fresh(forever);

        String unwritable = broker.createTopic("journal-" + UUID.randomUUID(), 1, Map.of("min.insync.replicas", "2"));
        IllegalStateException isr = assertThrows(IllegalStateException.class,
                () -> KafkaActionStateStores.openFresh(broker.config(unwritable)));
        assertTrue(isr.getMessage().contains("min.insync.replicas=2"), isr.getMessage());

        assertThrows(IllegalArgumentException.class, () -> broker.config("t").with("acks", "1"));
        assertThrows(IllegalArgumentException.class, () -> broker.config("t").with("enable.idempotence", "false"));
    }

    /**
     * Bounded growth: the broker deletes what a prune made deletable. The topic rolls a segment
     * every 100 ms and compacts eagerly; the loop keeps writing (and pruning) a small filler entry
     * so segments roll, and stops once compaction has removed every record of the pruned entries.
     */
    @Test
    void compactionDeletesTheRecordsOfPrunedEntries() throws Exception {
        String topic = broker.createTopic("journal-compaction-" + UUID.randomUUID(), 1, Map.of(
                "segment.ms", "100", "min.cleanable.dirty.ratio", "0.01", "delete.retention.ms", "0",
                "min.compaction.lag.ms", "0"));
        LogActionStateStore store = fresh(topic);
        AtomicInteger executions = new AtomicInteger();
        for (int user = 0; user < 20; user++) {
            runAction(store, "user-" + user, 0, 5, executions);
        }
        runAction(store, "live", 0, 5, executions);
        for (int user = 0; user < 20; user++) {
            store.pruneStateAt("user-" + user, 0);
        }
        store.sync();
        assertEquals(21 * 6, broker.valueRecordsByKey(topic, 1).size(), "before compaction every record is there");

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        long pruned = Long.MAX_VALUE;
        for (long filler = 0; pruned > 0 && System.nanoTime() < deadline; filler++) {
            runAction(store, "filler", filler, 0, executions);
            store.pruneStateAt("filler", filler);
            store.sync();
            pruned = recordsNaming(broker.valueRecordsByKey(topic, 1), "user-");
        }
        assertEquals(0, pruned, "the broker deleted every record of the pruned entries");
        assertEquals(6, recordsNaming(broker.valueRecordsByKey(topic, 1), "live"), "and kept the live entry's six");
        LogActionStateStore back = restored(topic, 0, MAX_PARALLELISM - 1, List.of(store.getRecoveryMarker()));
        assertEquals(List.of("result 0 of run 101", "result 1 of run 102", "result 2 of run 103", "result 3 of run 104",
                "result 4 of run 105"), runAction(back, "live", 0, 5, executions), "the live journal is whole");
    }

    /** How many of the record keys hold {@code text} (in their state key's business key). */
    private static long recordsNaming(Map<String, Integer> keys, String text) {
        byte[] needle = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return keys.keySet().stream().map(k -> java.util.Base64.getDecoder().decode(k)).filter(k -> contains(k, needle)).count();
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (java.util.Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aRestoreIntoATopicCreatedAgainIsRefused() throws Exception {
        String topic = newTopic(1);
        byte[] marker;
        try (LogActionStateStore store = KafkaActionStateStores.openFresh(broker.config(topic))) {
            runAction(store, "user", 0, 1, new AtomicInteger());
            marker = store.getRecoveryMarker();
        }
        try (Admin admin = broker.admin()) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        }
        broker.createTopic(topic, 1);
        JournalException refused = assertThrows(JournalException.class,
                () -> restored(topic, 0, MAX_PARALLELISM - 1, List.of(marker)));
        assertEquals(JournalException.Code.ILLEGAL_STATE, refused.getCode());
        assertTrue(refused.getMessage().contains("topic id differs"), refused.getMessage());
    }
}
