package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.flink.DurableActionFunction;
import io.durablejournal.flink.replay.ActionReplay;
import io.durablejournal.flink.replay.JournalReplayer;
import io.durablejournal.flink.replay.JournalReplayerMain;
import io.durablejournal.flink.replay.RecordedActions;
import io.durablejournal.flink.replay.ReplayCandidate;
import io.durablejournal.flink.replay.ReplayReport;
import io.durablejournal.flink.replay.ReplaySelection;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import io.durablejournal.store.RetainedAction;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention on the Kafka store and replays of what it retained: a real MiniCluster job of {@link
 * DurableActionFunction} over a Kafka store that retains completed actions in its retained topic,
 * replayed from that topic directly (no consumer group) and from a dump of it, with the same exact
 * report; the topics are unchanged by a replay (end offsets and every record's bytes) and no call
 * body of a candidate runs. Retention off writes exactly the records it writes today; the count
 * and the age bounds hold.
 */
class KafkaReplayTest {
    private static final String ACTION = "answer";
    private static final int MAX_PARALLELISM = KafkaActionStateStores.DEFAULT_MAX_PARALLELISM;
    static final AtomicInteger RECORDED_SIDE_EFFECTS = new AtomicInteger();
    static final AtomicInteger REPLAY_SIDE_EFFECTS = new AtomicInteger();

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.brokerOnly();

    @TempDir
    Path tmp;

    static String journalTopic;
    static String retainedTopic;

    private static KafkaBroker broker() {
        return KAFKA.broker();
    }

    /** A journal topic and its retained topic ({@code <topic>-retained}, compact,delete with retention.ms). */
    private static String topics(String prefix, long retentionMs) throws Exception {
        String topic = broker().createTopic(prefix + "-" + UUID.randomUUID(), 2);
        broker().createTopic(topic + "-retained", 1, Map.of("cleanup.policy", "compact,delete", "retention.ms", String.valueOf(retentionMs)));
        return topic;
    }

    private static DurableCallable<String> call(String id, String value, AtomicInteger sideEffects) {
        return DurableCallable.of(id, String.class, () -> {
            sideEffects.incrementAndGet();
            return value;
        });
    }

    static String recordedAction(String input, RunnerContextImpl ctx, AtomicInteger sideEffects) throws Exception {
        String answer = ctx.durableExecute(call("llm", "LLM says " + input, sideEffects));
        String looked = ctx.durableExecute(call("tool:lookup", "#" + input.length(), sideEffects));
        return answer + " " + looked;
    }

    @BeforeAll
    static void recordAJob() throws Exception {
        journalTopic = topics("journal-replay", Duration.ofHours(1).toMillis());
        retainedTopic = journalTopic + "-retained";
        KafkaStoreConfig config = broker().config(journalTopic).retainCompleted(Duration.ofHours(1), 1000).planDigest("plan-v1");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        AgentAction<String, String> action = (input, ctx) -> recordedAction(input, ctx, RECORDED_SIDE_EFFECTS);
        env.fromData("alpha", "bravo", "charlie")
                .keyBy(r -> r, Types.STRING)
                .process(new DurableActionFunction<String, String, String>(ACTION, action, String.class,
                        KafkaActionStateStores.factory(config)), Types.STRING)
                .sinkTo(new DiscardingSink<>());
        env.execute("record on Kafka for replay");
        assertEquals(6, RECORDED_SIDE_EFFECTS.get());
    }

    /** Both topics as they are: every record's partition, offset, key and value, and each partition's end offset. */
    private static String snapshot(String topic) throws Exception {
        Properties client = new Properties();
        client.put("bootstrap.servers", broker().bootstrapServers());
        ByteArrayOutputStream records = new ByteArrayOutputStream();
        KafkaJournalTool.dump(client, topic, records);
        client.put("key.deserializer", ByteArrayDeserializer.class.getName());
        client.put("value.deserializer", ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(client)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
            return consumer.endOffsets(partitions) + " " + java.util.Base64.getEncoder().encodeToString(records.toByteArray());
        }
    }

    private static Collection<String> groups() throws Exception {
        try (Admin admin = broker().admin()) {
            return admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream().map(ConsumerGroupListing::groupId)
                    .collect(Collectors.toSet());
        }
    }

    private String journalBefore;
    private String retainedBefore;
    private Collection<String> groupsBefore;

    private void rememberTheTopics() throws Exception {
        journalBefore = snapshot(journalTopic);
        retainedBefore = snapshot(retainedTopic);
        groupsBefore = groups();
    }

    @AfterEach
    void replayWroteNothingAndRanNothing() throws Exception {
        if (journalBefore != null) {
            assertEquals(journalBefore, snapshot(journalTopic), "the journal topic is unchanged");
            assertEquals(retainedBefore, snapshot(retainedTopic), "the retained topic is unchanged");
            assertEquals(groupsBefore, groups(), "no consumer group was joined");
        }
        assertEquals(0, REPLAY_SIDE_EFFECTS.get(), "no candidate call body ran");
    }

    private static ReplayCandidate<String, String> candidate(AgentAction<String, String> action) {
        return ReplayCandidate.of(ACTION, action, String.class, String.class);
    }

    /** The unchanged action, for JournalReplayerMain's --candidate. */
    public static final class Unchanged implements Supplier<ReplayCandidate<?, ?>> {
        @Override
        public ReplayCandidate<?, ?> get() {
            return candidate((in, ctx) -> recordedAction(in, ctx, REPLAY_SIDE_EFFECTS));
        }
    }

    private Path dumpOfTheRetainedTopic() throws Exception {
        Path file = tmp.resolve("retained.dump");
        Properties client = new Properties();
        client.put("bootstrap.servers", broker().bootstrapServers());
        try (OutputStream out = Files.newOutputStream(file)) {
            KafkaJournalTool.dump(client, retainedTopic, out);
        }
        return file;
    }

    private static final String UNCHANGED_TABLE = String.join("\n",
            "key          seq  action  outcome    calls         detail",
            "str:alpha    0    answer  unchanged  2/2 replayed",
            "str:bravo    0    answer  unchanged  2/2 replayed",
            "str:charlie  0    answer  unchanged  2/2 replayed",
            "3 replayed of answer: 0 not-replayable, 0 diverged, 0 would-run, 0 failed, 0 output-changed, 3 unchanged", "");

    @Test
    void theTopicAndADumpOfItReplayTheSameAndChangeNothing() throws Exception {
        rememberTheTopics();
        JournalReplayer<String, String> replayer = JournalReplayer.of(candidate((in, ctx) -> recordedAction(in, ctx, REPLAY_SIDE_EFFECTS)));
        ReplayReport fromTopic = replayer.replay(KafkaRecordedActions.of(broker().config(journalTopic).retainCompleted(Duration.ofHours(1), 1000)),
                ReplaySelection.all());
        assertEquals(UNCHANGED_TABLE, fromTopic.toTable());
        for (ActionReplay action : fromTopic.getActions()) {
            assertEquals("plan-v1", action.getPlanDigest());
            assertEquals(action.getRecordedOutputs(), action.getCandidateOutputs());
        }
        assertEquals(List.of("\"LLM says alpha #5\""), fromTopic.getActions().get(0).getRecordedOutputs());

        ReplayReport fromDump = replayer.replay(RecordedActions.dump(dumpOfTheRetainedTopic()), ReplaySelection.all());
        assertEquals(fromTopic.toJson(), fromDump.toJson(), "a dump replays exactly as the topic it was taken of");
    }

    @Test
    void aChangedPromptChangesTheOutputsInTheReportOfTheTopic() throws Exception {
        rememberTheTopics();
        ReplayReport report = JournalReplayer.of(candidate((in, ctx) -> "Answer: " + recordedAction(in, ctx, REPLAY_SIDE_EFFECTS)))
                .replay(KafkaRecordedActions.topic(broker().bootstrapServers(), retainedTopic, null), ReplaySelection.all().key("str:bravo"));
        assertEquals(String.join("\n",
                "key        seq  action  outcome         calls         detail",
                "str:bravo  0    answer  output-changed  2/2 replayed  recorded [\"LLM says bravo #5\"] -> [\"Answer: LLM says bravo #5\"]",
                "1 replayed of answer: 0 not-replayable, 0 diverged, 0 would-run, 0 failed, 1 output-changed, 0 unchanged", ""),
                report.toTable());
        assertEquals(1, report.exitStatus(ReplayReport.FAIL_ON_ANY_CHANGE));
    }

    @Test
    void theCommandReplaysFromTheTopicAndFromADump() throws Exception {
        Path dump = dumpOfTheRetainedTopic();
        rememberTheTopics();
        String candidate = Unchanged.class.getName();
        String[][] sources = {{"--kafka", broker().bootstrapServers(), "--topic", retainedTopic}, {"--dump", dump.toString()}};
        for (String[] source : sources) {
            List<String> args = new ArrayList<>(List.of(source));
            args.addAll(List.of("--candidate", candidate));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = JournalReplayerMain.run(args.toArray(new String[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(0, status, source[0] + ": " + err.toString(StandardCharsets.UTF_8));
            assertEquals(UNCHANGED_TABLE, out.toString(StandardCharsets.UTF_8), source[0]);
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = JournalReplayerMain.run(new String[] {"--dump", dump.toString(), "--store", tmp.toString(), "--candidate", candidate},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, status, "two sources are refused");
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("one of --store, --dump and --kafka"), err.toString());
    }

    @Test
    void theInspectionToolListsTheCopiesOfADump() throws Exception {
        Path dump = dumpOfTheRetainedTopic();
        String listed = KafkaJournalToolTest.tool(0, "retained", dump.toString());
        List<String> lines = List.of(listed.split("\n"));
        assertEquals("3 completed actions retained in " + dump, lines.get(0));
        assertEquals(List.of("#", "key", "seq", "action", "event", "calls", "outputs", "completed-at-ms", "plan"),
                List.of(lines.get(1).trim().split("\\s+")));
        for (int i = 0; i < 3; i++) {
            String[] row = lines.get(2 + i).trim().split("\\s+");
            assertEquals(List.of(String.valueOf(i), "str:" + List.of("alpha", "bravo", "charlie").get(i), "0", ACTION, "2", "1", "plan-v1"),
                    List.of(row[0], row[1], row[2], row[3], row[5], row[6], row[8]), lines.get(2 + i));
        }
        assertEquals(5, lines.size(), listed);
    }

    /** Actions {@code 0..n-1} through the store API, each two calls, completed and pruned (as a checkpoint prunes). */
    private static void runActions(LogActionStateStore store, int n) {
        for (int i = 0; i < n; i++) {
            String key = "user-" + i;
            try (DurableExecutionContext journal = store.openContext(key, 0, "act", EventIdentity.rootOccurrence(key, 0), null)) {
                journal.recordCallCompletion("llm", ("reply to " + key).getBytes(StandardCharsets.UTF_8), null);
                journal.recordCallCompletion("tool:lookup", ("account of " + key).getBytes(StandardCharsets.UTF_8), null);
                journal.markCompleted();
            }
            store.pruneStateAt(key, 0);
        }
        store.sync();
    }

    private static LogActionStateStore openFresh(KafkaStoreConfig config, byte[] lineage) {
        LogActionStateStore store = KafkaActionStateStores.open(config, MAX_PARALLELISM, 0, MAX_PARALLELISM - 1);
        store.startFresh(lineage);
        return store;
    }

    @Test
    void retentionOffWritesExactlyTodaysRecordsAndOnTheSameJournalRecords() throws Exception {
        String plain = broker().createTopic("journal-plain-" + UUID.randomUUID(), 2);
        String retaining = topics("journal-retaining", Duration.ofHours(1).toMillis());
        byte[] lineage = KafkaActionStateStores.randomLineage();
        // Off: no retained topic exists for it, and none is looked for.
        try (LogActionStateStore off = openFresh(broker().config(plain), lineage);
                LogActionStateStore on = openFresh(broker().config(retaining).retainCompleted(Duration.ofHours(1), 10), lineage)) {
            assertTrue(!off.retainsCompleted() && on.retainsCompleted());
            runActions(off, 3);
            runActions(on, 3);
            assertEquals(off.stats().recordsAppended(), on.stats().recordsAppended());
            assertEquals(off.stats().bytesAppended(), on.stats().bytesAppended());
        }
        Properties client = new Properties();
        client.put("bootstrap.servers", broker().bootstrapServers());
        ByteArrayOutputStream offRecords = new ByteArrayOutputStream();
        ByteArrayOutputStream onRecords = new ByteArrayOutputStream();
        KafkaJournalTool.dump(client, plain, offRecords);
        KafkaJournalTool.dump(client, retaining, onRecords);
        assertArrayEquals(offRecords.toByteArray(), onRecords.toByteArray(), "the journal topics hold the same records, byte for byte");
        assertEquals(3, KafkaRecordedActions.topic(broker().bootstrapServers(), retaining + "-retained", null).read().size());
    }

    @Test
    void aStoreKeepsAtMostMaxCountCopiesTheNewest() throws Exception {
        String topic = topics("journal-count", Duration.ofHours(1).toMillis());
        KafkaStoreConfig config = broker().config(topic).retainCompleted(Duration.ofHours(1), 3);
        try (LogActionStateStore store = openFresh(config, KafkaActionStateStores.randomLineage())) {
            runActions(store, 5);
            assertEquals(null, store.retentionError());
        }
        List<String> kept = KafkaRecordedActions.of(config).read().stream().map(RetainedAction::getKey).collect(Collectors.toList());
        assertEquals(List.of("str:user-2", "str:user-3", "str:user-4"), kept);
        Map<String, Integer> byKey = broker().valueRecordsByKey(config.retainedTopicName(), 1);
        assertEquals(3, byKey.size(), "5 copies under 3 keys: compaction keeps 3 " + byKey);
        assertEquals(5, byKey.values().stream().mapToInt(Integer::intValue).sum());
    }

    @Test
    void copiesOlderThanTheAgeAreDeletedByTheTopic() throws Exception {
        String topic = topics("journal-age", 1000);
        KafkaStoreConfig config = broker().config(topic).retainCompleted(Duration.ofSeconds(1), 100);
        try (LogActionStateStore store = openFresh(config, KafkaActionStateStores.randomLineage())) {
            runActions(store, 2);
        }
        TopicPartition retained = new TopicPartition(config.retainedTopicName(), 0);
        assertEquals(2L, offsets(retained)[1], "both copies were written");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<RetainedAction> listed = KafkaRecordedActions.of(config).read();
        while (!listed.isEmpty() && System.nanoTime() < deadline) {
            listed = KafkaRecordedActions.of(config).read();
        }
        assertEquals(List.of(), listed, "the copies past retention.ms are gone");
        assertEquals(2L, offsets(retained)[0], "deleted by the broker: the partition now starts after them");
    }

    /** The first and the end offset of {@code partition}. */
    private static long[] offsets(TopicPartition partition) {
        Properties client = new Properties();
        client.put("bootstrap.servers", broker().bootstrapServers());
        client.put("key.deserializer", ByteArrayDeserializer.class.getName());
        client.put("value.deserializer", ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(client)) {
            List<TopicPartition> one = List.of(partition);
            return new long[] {consumer.beginningOffsets(one).get(partition), consumer.endOffsets(one).get(partition)};
        }
    }

    @Test
    void aRetainedTopicThatWouldKeepCopiesPastTheBoundsIsRefusedNamingTheSetting() throws Exception {
        String topic = broker().createTopic("journal-bad-retained-" + UUID.randomUUID(), 1);
        KafkaStoreConfig config = broker().config(topic).retainCompleted(Duration.ofMinutes(1), 10);
        IllegalStateException missing = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> KafkaActionStateStores.openFresh(config));
        assertTrue(missing.getMessage().contains("'" + topic + "-retained' does not exist"), missing.getMessage());
        broker().createTopic(topic + "-retained", 1, Map.of("cleanup.policy", "compact,delete", "retention.ms", "3600000"));
        IllegalStateException tooLong = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> KafkaActionStateStores.openFresh(config));
        assertTrue(tooLong.getMessage().contains("retention.ms=3600000") && tooLong.getMessage().contains("set retention.ms=60000"),
                tooLong.getMessage());
    }
}
