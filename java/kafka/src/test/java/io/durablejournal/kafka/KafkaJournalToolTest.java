package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inspection tool over a Kafka-backed store: {@code KafkaJournalTool dump} reads the topic
 * (no consumer group, nothing committed) for {@code durable-journal list|show|verify}, which
 * show every job history (lineage) in it with its live entries; {@code KafkaJournalTool drop}
 * removes a dead history with tombstones.
 */
class KafkaJournalToolTest {
    private static final int MAX_PARALLELISM = KafkaActionStateStores.DEFAULT_MAX_PARALLELISM;

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.brokerOnly();

    @TempDir
    Path tmp;

    private static KafkaBroker broker() {
        return KAFKA.broker();
    }

    /** A job history: {@code keys} actions of two calls each, the first completed and pruned. */
    private static byte[] history(String topic, String... keys) {
        byte[] lineage = KafkaActionStateStores.randomLineage();
        try (LogActionStateStore store = KafkaActionStateStores.open(broker().config(topic), MAX_PARALLELISM, 0, MAX_PARALLELISM - 1)) {
            store.startFresh(lineage);
            for (String key : keys) {
                try (DurableExecutionContext journal = store.openContext(key, 0, "act", EventIdentity.rootOccurrence(key, 0), null)) {
                    journal.recordCallCompletion("chat", ("reply to " + key).getBytes(StandardCharsets.UTF_8), null);
                    journal.recordCallCompletion("tool-call:lookup", ("account of " + key).getBytes(StandardCharsets.UTF_8), null);
                    if (key.equals(keys[0])) {
                        journal.markCompleted();
                    }
                }
            }
            store.pruneStateAt(keys[0], 0);
            store.sync();
        }
        return lineage;
    }

    private Path dump(String topic) throws IOException {
        Path file = tmp.resolve("dump-" + UUID.randomUUID());
        Properties client = new Properties();
        client.put("bootstrap.servers", broker().bootstrapServers());
        try (OutputStream out = Files.newOutputStream(file)) {
            KafkaJournalTool.dump(client, topic, out);
        }
        return file;
    }

    /** Runs the inspection binary; returns its standard output, checking its exit status (SecuredKafkaTest runs it too). */
    static String tool(int status, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("durablejournal.tool"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(false).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        process.getInputStream().transferTo(out);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(status, process.exitValue(), text + err);
        return text;
    }

    private static Collection<String> groups() throws Exception {
        try (Admin admin = broker().admin()) {
            return admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream().map(ConsumerGroupListing::groupId)
                    .collect(Collectors.toSet());
        }
    }

    @Test
    void listShowAndVerifyReadEveryHistoryOfATopicWithoutJoiningAGroup() throws Exception {
        String topic = broker().createTopic("journal-tool-" + UUID.randomUUID(), 2);
        byte[] earlier = history(topic, "old-0", "old-1");
        byte[] current = history(topic, "user-0", "user-1", "user-2");
        Collection<String> groupsBefore = groups();

        Path dump = dump(topic);
        String list = tool(0, "list", dump.toString());
        System.out.println(list);
        assertTrue(list.contains("lineage " + KafkaJournalTool.hex(earlier) + ": 1 entry"), list);
        assertTrue(list.contains("lineage " + KafkaJournalTool.hex(current) + ": 2 entries"), list);
        assertTrue(list.contains("str:user-1 ") && list.contains("str:user-2 ") && !list.contains("str:user-0 "),
                "the pruned entry is gone, the live ones listed: " + list);
        String show = tool(0, "show", dump.toString(), "str:user-2");
        assertTrue(show.contains("tool-call:lookup") && show.contains("account of user-2"), show);
        String verify = tool(0, "verify", dump.toString());
        assertTrue(verify.startsWith("ok: "), verify);
        assertEquals(groupsBefore, groups(), "the dump joined no consumer group");

        // The earlier history will never be restored again: drop it.
        Properties client = new Properties();
        client.put("bootstrap.servers", broker().bootstrapServers());
        long tombstones = KafkaJournalTool.drop(client, topic, List.of(earlier));
        assertEquals(3, tombstones, "one per record of old-1's live entry: its put and two calls");
        String after = tool(0, "list", dump(topic).toString());
        assertTrue(after.contains("lineage " + KafkaJournalTool.hex(earlier) + ": 0 entries"), after);
        assertTrue(after.contains("lineage " + KafkaJournalTool.hex(current) + ": 2 entries"), after);
        assertEquals(0, KafkaJournalTool.drop(client, topic, List.of(earlier)), "dropping it again appends nothing");
    }

    @Test
    void verifyNamesARecordARestoreCannotUse() throws Exception {
        String topic = broker().createTopic("journal-tool-bad-" + UUID.randomUUID(), 1);
        history(topic, "user-0", "user-1");
        try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer = ByteProducers.open(broker().bootstrapServers(),
                Map.of())) {
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, "not ours".getBytes(StandardCharsets.UTF_8),
                    new byte[] {1})).get();
        }
        Path dump = dump(topic);
        String verify = tool(4, "verify", dump.toString());
        assertTrue(verify.contains("corrupt: partition 0 offset ") && verify.contains("not a journal record key"), verify);
        assertFalse(tool(0, "list", dump.toString()).isEmpty());
    }
}
