package io.durablejournal.kafka;

import io.durablejournal.store.LogTransport;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka topic as the {@link LogTransport} of a native log-backed store: an idempotent producer
 * with {@code acks=all} whose every batch is waited for, and a consumer (no group, nothing
 * committed) that reads partitions from their start when the store loads.
 *
 * <p>Appends fail within {@code max.block.ms} + {@code delivery.timeout.ms} when the cluster
 * cannot take them; the producer keeps retrying within that time, so a broker restart in between
 * delays the call and loses nothing (the idempotent producer writes each record once, in order).
 */
final class KafkaTransport implements LogTransport {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaTransport.class);

    private final KafkaStoreConfig config;
    private final String name;
    private final byte[] topicId;
    private final int partitions;
    private final int replicationFactor;
    private final int minInSyncReplicas;
    private final long apiTimeoutMs;
    private final KafkaRecordLimit recordLimit;
    private final KafkaProducer<byte[], byte[]> producer;
    /** The retained topic's partition count; 0 without retention. */
    private final int retainedPartitions;
    /** Created on first read; used under the store's lock only (KafkaConsumer is not thread-safe). */
    private KafkaConsumer<byte[], byte[]> consumer;

    private KafkaTransport(KafkaStoreConfig config, TopicCheck.Topic topic, KafkaRecordLimit recordLimit,
            KafkaProducer<byte[], byte[]> producer, int retainedPartitions) {
        this.retainedPartitions = retainedPartitions;
        this.config = config;
        this.name = config.toString();
        this.topicId = topic.id;
        this.partitions = topic.partitions;
        this.replicationFactor = topic.replicationFactor;
        this.minInSyncReplicas = topic.minInSyncReplicas;
        this.apiTimeoutMs = config.number("default.api.timeout.ms", 60_000);
        this.recordLimit = recordLimit;
        this.producer = producer;
    }

    /** Checks the topic (see {@link TopicCheck}) and connects a producer to it. */
    static KafkaTransport open(KafkaStoreConfig config) throws Exception {
        long timeoutMs = config.number("default.api.timeout.ms", 60_000);
        TopicCheck.Topic topic;
        int retainedPartitions = 0;
        try (Admin admin = Admin.create(config.clientProperties())) {
            topic = TopicCheck.check(admin, config, timeoutMs);
            if (config.retention() != null) {
                retainedPartitions = RetainedTopicCheck.check(admin, config, timeoutMs);
            }
        }
        if (topic.replicationFactor < 2) {
            LOG.warn("{} has a replication factor of {}: its journals do not survive the loss of that broker's disk",
                    config, topic.replicationFactor);
        }
        Properties props = config.clientProperties();
        props.put("acks", "all");
        props.put("enable.idempotence", "true");
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        KafkaRecordLimit recordLimit = KafkaRecordLimit.of(config, topic.maxMessageBytes);
        return new KafkaTransport(config, topic, recordLimit, new KafkaProducer<>(props), retainedPartitions);
    }

    /** The retained topic's partition count (0 without retention). */
    int retainedPartitions() {
        return retainedPartitions;
    }

    /**
     * The retained topic as a log of its own for the store's copies, sending through this
     * transport's producer (which this transport closes): it only appends.
     */
    LogTransport retainedTopic() {
        String topic = config.retainedTopicName();
        String retainedName = "Kafka topic '" + topic + "' at " + config.bootstrapServers();
        KafkaTransport journal = this;
        return new LogTransport() {
            @Override
            public String name() {
                return retainedName;
            }

            @Override
            public byte[] logId() {
                return new byte[16];
            }

            @Override
            public int partitions() {
                return retainedPartitions;
            }

            @Override
            public long[] append(int[] partitions, byte[][] keys, byte[][] values) throws IOException {
                return journal.acknowledged(null, journal.send(topic, partitions, keys, values));
            }

            @Override
            public Appending submit(int[] partitions, byte[][] keys, byte[][] values) throws IOException {
                List<Future<RecordMetadata>> sent = journal.send(topic, partitions, keys, values);
                return () -> journal.acknowledged(null, sent);
            }

            @Override
            public long[] endOffsets() {
                throw new UnsupportedOperationException("the retained topic is written only");
            }

            @Override
            public void read(int partition, long endOffset, RecordBatches records) {
                throw new UnsupportedOperationException("the retained topic is written only");
            }

            @Override
            public void close() {
                // The producer is the journal transport's, closed with it.
            }
        };
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public byte[] logId() {
        return topicId.clone();
    }

    @Override
    public int partitions() {
        return partitions;
    }

    @Override
    public long maxRecordBytes() {
        return recordLimit.maxRecordBytes;
    }

    @Override
    public String recordLimitSetting() {
        return recordLimit.setting;
    }

    @Override
    public long[] append(int[] partitions, byte[][] keys, byte[][] values) throws IOException {
        List<Future<RecordMetadata>> sent = send(config.topic(), partitions, keys, values);
        return acknowledged(partitions, sent);
    }

    /**
     * Sends the records (the producer batches them with whatever other threads sent meanwhile)
     * and returns what waits for their acknowledgements. {@code send} blocks only while the
     * producer has no metadata for the topic or its buffer is full (at most {@code max.block.ms}).
     */
    @Override
    public Appending submit(int[] partitions, byte[][] keys, byte[][] values) throws IOException {
        List<Future<RecordMetadata>> sent = send(config.topic(), partitions, keys, values);
        return () -> acknowledged(partitions, sent);
    }

    private List<Future<RecordMetadata>> send(String topic, int[] partitions, byte[][] keys, byte[][] values) throws IOException {
        List<Future<RecordMetadata>> sent = new ArrayList<>(keys.length);
        try {
            for (int i = 0; i < keys.length; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, partitions[i], keys[i], values[i])));
            }
        } catch (RuntimeException e) {
            throw notAcknowledged(keys.length, e);
        }
        return sent;
    }

    /** @param partitions the journal partitions written, to diagnose a failure with; null for the retained topic's */
    private long[] acknowledged(int[] partitions, List<Future<RecordMetadata>> sent) throws IOException {
        long[] offsets = new long[sent.size()];
        try {
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = sent.get(i).get().offset();
            }
            return offsets;
        } catch (ExecutionException e) {
            throw partitions == null ? notAcknowledged(offsets.length, e.getCause())
                    : notAcknowledged(offsets.length, e.getCause(), partitions);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw notAcknowledged(offsets.length, e);
        }
    }

    private IOException notAcknowledged(int records, Throwable cause) {
        Throwable shown = config.redact(cause);
        if (cause instanceof AuthorizationException || cause instanceof AuthenticationException) {
            return new IOException(records + " journal record(s) not acknowledged: " + refusal(cause) + " ("
                    + shown + "); nothing of them is recorded", shown);
        }
        return new IOException(records + " journal record(s) not acknowledged within delivery.timeout.ms="
                + config.number("delivery.timeout.ms", 120_000) + ": " + shown, shown);
    }

    /** What the cluster refused, for an authorization or authentication failure of a send. */
    private String refusal(Throwable cause) {
        if (cause instanceof TopicAuthorizationException) {
            return "the cluster's ACLs do not allow this client's principal to WRITE topic '" + config.topic() + "'";
        }
        if (cause instanceof ClusterAuthorizationException) {
            return "the cluster's ACLs do not allow this client's principal to IDEMPOTENT_WRITE (granted with WRITE on topic '"
                    + config.topic() + "')";
        }
        if (cause instanceof AuthenticationException) {
            return "the cluster refused this client's credentials";
        }
        return "the cluster refused the write to topic '" + config.topic() + "'";
    }

    /**
     * As above, with what the cluster says of the records' partitions: the producer reports a
     * send that ran out of time as a timeout, whatever kept it from being acknowledged.
     */
    private IOException notAcknowledged(int records, Throwable cause, int[] partitions) {
        IOException failure = notAcknowledged(records, cause);
        if (cause instanceof AuthorizationException || cause instanceof AuthenticationException) {
            return failure;
        }
        String diagnosis = PartitionDiagnosis.describe(config, apiTimeoutMs, partitions, replicationFactor, minInSyncReplicas);
        return new IOException(failure.getMessage() + "; " + diagnosis, failure.getCause());
    }

    /** A metric of the producer's own ({@code producer-metrics} group), e.g. {@code records-per-request-avg}. */
    double producerMetric(String name) {
        return producer.metrics().entrySet().stream()
                .filter(m -> m.getKey().group().equals("producer-metrics") && m.getKey().name().equals(name))
                .map(m -> ((Number) m.getValue().metricValue()).doubleValue())
                .findFirst()
                .orElse(Double.NaN);
    }

    @Override
    public long[] endOffsets() {
        List<TopicPartition> all = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(config.topic(), p));
        }
        Map<TopicPartition, Long> ends = consumer().endOffsets(all, Duration.ofMillis(apiTimeoutMs));
        long[] out = new long[partitions];
        for (int p = 0; p < partitions; p++) {
            out[p] = ends.get(all.get(p));
        }
        return out;
    }

    @Override
    public void read(int partition, long endOffset, RecordBatches records) throws IOException {
        read(partition, 0, endOffset, records);
    }

    /**
     * Reads from {@code startOffset} (or the partition's first record, if compaction or retention
     * removed the records before it).
     */
    @Override
    public void read(int partition, long startOffset, long endOffset, RecordBatches records) throws IOException {
        KafkaConsumer<byte[], byte[]> reader = consumer();
        TopicPartition tp = new TopicPartition(config.topic(), partition);
        reader.assign(Collections.singleton(tp));
        if (startOffset <= 0) {
            reader.seekToBeginning(Collections.singleton(tp));
        } else {
            reader.seek(tp, startOffset);
        }
        long deadline = System.nanoTime() + Duration.ofMillis(apiTimeoutMs).toNanos();
        while (reader.position(tp, Duration.ofMillis(apiTimeoutMs)) < endOffset) {
            ConsumerRecords<byte[], byte[]> polled = reader.poll(Duration.ofMillis(200));
            if (polled.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("reading " + name + " partition " + partition + " made no progress for " + apiTimeoutMs
                            + " ms (default.api.timeout.ms), at offset " + reader.position(tp) + " of " + endOffset);
                }
                continue;
            }
            deadline = System.nanoTime() + Duration.ofMillis(apiTimeoutMs).toNanos();
            List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> record : polled.records(tp)) {
                if (record.offset() < endOffset) {
                    batch.add(record);
                }
            }
            long[] offsets = new long[batch.size()];
            byte[][] keys = new byte[batch.size()][];
            byte[][] values = new byte[batch.size()][];
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = batch.get(i).offset();
                keys[i] = batch.get(i).key();
                values[i] = batch.get(i).value();
            }
            records.accept(offsets, keys, values);
        }
        reader.unsubscribe();
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        if (consumer == null) {
            Properties props = config.clientProperties();
            props.put("enable.auto.commit", "false");
            props.put("auto.offset.reset", "earliest");
            props.put("key.deserializer", ByteArrayDeserializer.class.getName());
            props.put("value.deserializer", ByteArrayDeserializer.class.getName());
            consumer = new KafkaConsumer<>(props);
        }
        return consumer;
    }

    @Override
    public void close() {
        try {
            producer.close(Duration.ofMillis(apiTimeoutMs));
        } finally {
            if (consumer != null) {
                consumer.close(Duration.ofMillis(apiTimeoutMs));
            }
        }
    }
}
