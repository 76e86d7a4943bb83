package io.durablejournal.kafka;

import io.durablejournal.flink.replay.RecordedActions;
import io.durablejournal.store.RetainedAction;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Paths;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * A Kafka store's retained topic as the recorded actions of a replay ({@link RecordedActions}):
 * read as {@code KafkaJournalTool dump} reads a topic (assigned partitions from their first
 * record to their end: no consumer group joined, no offset committed, nothing written), then
 * decoded natively, as a dump file of the topic would be. The whole topic is held in memory while
 * it is decoded.
 */
public final class KafkaRecordedActions implements RecordedActions {
    private final Properties client;
    private final String topic;

    private KafkaRecordedActions(Properties client, String topic) {
        this.client = client;
        this.topic = topic;
    }

    /**
     * The retained topic {@code topic} (e.g. {@code journal-retained}) at {@code servers}, with
     * the client settings of {@code clientConfig} (a properties file, or null) and {@code
     * -Dkafka.<setting>} system properties, as {@code KafkaJournalTool} takes them.
     */
    public static KafkaRecordedActions topic(String servers, String topic, String clientConfig) {
        Objects.requireNonNull(servers, "servers");
        Objects.requireNonNull(topic, "topic");
        try {
            return new KafkaRecordedActions(KafkaJournalTool.clientProperties(servers, clientConfig == null ? null
                    : Paths.get(clientConfig)), topic);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the client settings " + clientConfig + " failed", e);
        }
    }

    /** The retained topic of the store {@code config} configures ({@link KafkaStoreConfig#retainedTopicName}). */
    public static KafkaRecordedActions of(KafkaStoreConfig config) {
        return new KafkaRecordedActions(config.clientProperties(), config.retainedTopicName());
    }

    @Override
    public List<RetainedAction> read() {
        ByteArrayOutputStream dump = new ByteArrayOutputStream();
        try {
            KafkaJournalTool.dump(client, topic, dump);
        } catch (IOException | RuntimeException e) {
            IOException shown = KafkaJournalTool.redacted(client, e);
            throw new UncheckedIOException("reading the retained topic '" + topic + "' failed: " + shown.getMessage(), shown);
        }
        return RetainedAction.readLogDump(dump.toByteArray());
    }

    @Override
    public String describe() {
        return "Kafka topic '" + topic + "' at " + client.getProperty("bootstrap.servers");
    }
}
