package io.durablejournal.kafka;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * For operators of a Kafka-backed store (a main in the Kafka jar):
 * <ul>
 *   <li>{@code dump <servers> <topic> [file]}: writes the topic's records, every partition from
 *       its first record to its end, for {@code durable-journal list|show|verify} (the Rust
 *       binary) to read: {@code ... dump host:9092 journal | durable-journal list -}. It reads
 *       with assigned partitions: it joins no consumer group and commits no offset, so it is safe
 *       beside a running job. A dump of a retained topic ({@link KafkaStoreConfig#retainCompleted})
 *       is what {@code durable-journal retained} lists and the replayer reads ({@code
 *       JournalReplayerMain --dump}).</li>
 *   <li>{@code drop <servers> <topic> <lineage>...}: removes the journals of job histories that
 *       will never be restored again (a lineage, as {@code list} prints it, is a job's history;
 *       one that no retained checkpoint or savepoint names is dead): appends a tombstone for each
 *       of their record keys, so compaction deletes them. It refuses nothing by itself: check that
 *       no job will restore the lineage first.</li>
 * </ul>
 * Other client settings (security) come from {@code --config <file>}, a Java properties file of
 * Kafka client settings (the one a job reads with {@link KafkaStoreConfig#withSettingsFrom}), or
 * from {@code -Dkafka.<setting>=<value>} system properties (which others on the machine see in the
 * process list: keep secrets in the file). A dump written to a file is its owner's alone
 * ({@code 0600}): it holds every journal of the topic. Secrets of the settings never appear in
 * what the tool prints.
 */
public final class KafkaJournalTool {
    private static final String USAGE = "usage: KafkaJournalTool dump [--config <client.properties>] <bootstrap-servers> <topic> [file]\n"
            + "       KafkaJournalTool drop [--config <client.properties>] <bootstrap-servers> <topic> <lineage-hex>...\n"
            + "(client settings: --config, a properties file such as security.protocol=SASL_SSL, or\n"
            + " -Dkafka.<setting>=<value>; a dump file is created 0600)";
    private static final byte[] MAGIC = {'D', 'J', 'K', 'D'};
    private static final int VERSION = 1;
    private static final Duration POLL = Duration.ofMillis(500);

    private KafkaJournalTool() {}

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        Path configFile = null;
        if (rest.size() >= 3 && rest.get(1).equals("--config")) {
            configFile = Paths.get(rest.get(2));
            rest.subList(1, 3).clear();
        }
        String command = rest.isEmpty() ? "" : rest.get(0);
        if (command.equals("dump") && rest.size() >= 3 && rest.size() <= 4) {
            Properties client = clientProperties(rest.get(1), configFile);
            try (OutputStream out = rest.size() == 4 ? privateFile(Paths.get(rest.get(3))) : System.out) {
                long records = dump(client, rest.get(2), out);
                System.err.println("dumped " + records + " records of topic '" + rest.get(2) + "'");
            } catch (RuntimeException | IOException e) {
                throw redacted(client, e);
            }
        } else if (command.equals("drop") && rest.size() >= 4) {
            List<byte[]> lineages = new ArrayList<>();
            for (String hex : rest.subList(3, rest.size())) {
                lineages.add(lineage(hex));
            }
            Properties client = clientProperties(rest.get(1), configFile);
            long tombstones;
            try {
                tombstones = drop(client, rest.get(2), lineages);
            } catch (Exception e) {
                throw redacted(client, e);
            }
            System.out.println("appended " + tombstones + " tombstones to topic '" + rest.get(2) + "'; compaction deletes the"
                    + " records once the partitions' segments roll (segment.ms / segment.bytes)");
        } else {
            System.err.println(USAGE);
            System.exit(2);
        }
    }

    /** The client settings: the file's, then -Dkafka.* over them, then the servers. */
    static Properties clientProperties(String servers, Path configFile) throws IOException {
        Properties props = new Properties();
        if (configFile != null) {
            props.putAll(KafkaStoreConfig.readSettings(configFile));
        }
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("kafka.")) {
                props.put(name.substring("kafka.".length()), System.getProperty(name));
            }
        }
        props.put("bootstrap.servers", servers);
        return props;
    }

    /** {@code failure} as the tool reports it: the secrets of the client settings hidden from its whole chain. */
    static IOException redacted(Properties client, Exception failure) {
        Map<String, String> settings = new HashMap<>();
        client.stringPropertyNames().forEach(name -> settings.put(name, client.getProperty(name)));
        Throwable shown = ClientSecrets.of(settings).redact(failure);
        return new IOException(String.valueOf(shown.getMessage()), shown);
    }

    /** {@code file} truncated or created, readable and writable by its owner alone whatever the umask. */
    static OutputStream privateFile(Path file) throws IOException {
        Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
        // Created 0600 (the umask can only take bits away), then set exactly: a file that existed keeps its mode otherwise.
        OutputStream out = Channels.newOutputStream(Files.newByteChannel(file, Set.of(StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(ownerOnly)));
        try {
            Files.setPosixFilePermissions(file, ownerOnly);
        } catch (IOException | RuntimeException e) {
            out.close();
            throw e;
        }
        return out;
    }

    private static byte[] lineage(String hex) {
        if (!hex.matches("[0-9a-fA-F]{32}")) {
            throw new IllegalArgumentException("a lineage is 32 hex digits, as durable-journal list prints it: " + hex);
        }
        byte[] out = new byte[16];
        for (int i = 0; i < 16; i++) {
            out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    /** Reads every record of {@code topic}, partition by partition, and hands it to {@code each}. */
    private static long readAll(Properties client, String topic, RecordSink each) throws IOException {
        Properties props = clientWith(client, Map.of("enable.auto.commit", "false", "auto.offset.reset", "earliest",
                "key.deserializer", ByteArrayDeserializer.class.getName(),
                "value.deserializer", ByteArrayDeserializer.class.getName()));
        // No group.id: assigned partitions, nothing committed, no group joined.
        props.remove("group.id");
        long records = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(60));
            if (partitions == null || partitions.isEmpty()) {
                throw new IllegalArgumentException("topic '" + topic + "' does not exist at " + client.get("bootstrap.servers"));
            }
            for (int p = 0; p < partitions.size(); p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long end = consumer.endOffsets(List.of(tp)).get(tp);
                while (consumer.position(tp) < end) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL).records(tp)) {
                        if (record.offset() < end) {
                            each.accept(p, record.offset(), record.key(), record.value());
                            records++;
                        }
                    }
                }
            }
        }
        return records;
    }

    /** A copy of the user's client properties with what the tool's consumer or producer needs set over them. */
    private static Properties clientWith(Properties client, Map<String, String> settings) {
        Properties props = new Properties();
        props.putAll(client);
        props.putAll(settings);
        return props;
    }

    @FunctionalInterface
    private interface RecordSink {
        void accept(int partition, long offset, byte[] key, byte[] value) throws IOException;
    }

    /** Writes the topic's records in the dump framing (see {@code rust/store/log/inspect.rs}). */
    static long dump(Properties client, String topic, OutputStream out) throws IOException {
        DataOutputStream data = new DataOutputStream(new BufferedOutputStream(out, 1 << 16));
        data.write(MAGIC);
        data.write(VERSION);
        ByteBuffer header = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        long records = readAll(client, topic, (partition, offset, key, value) -> {
            byte[] k = key == null ? new byte[0] : key;
            header.clear();
            header.putInt(partition).putLong(offset).putInt(k.length);
            data.write(header.array(), 0, 16);
            data.write(k);
            ByteBuffer length = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(value == null ? -1 : value.length);
            data.write(length.array());
            if (value != null) {
                data.write(value);
            }
        });
        data.flush();
        return records;
    }

    /**
     * Appends a tombstone for every record key of {@code lineages} whose newest record holds a
     * value (acks=all, idempotent, as the store writes). Returns how many.
     */
    static long drop(Properties client, String topic, List<byte[]> lineages) throws Exception {
        // Per partition, the keys of those lineages whose newest record is a value.
        Map<Integer, Map<ByteBuffer, Boolean>> live = new HashMap<>();
        readAll(client, topic, (partition, offset, key, value) -> {
            if (key != null && key.length > 17 && key[0] == 1 && ofLineage(key, lineages)) {
                live.computeIfAbsent(partition, p -> new HashMap<>()).put(ByteBuffer.wrap(key), value != null);
            }
        });
        Properties props = clientWith(client, Map.of("acks", "all", "enable.idempotence", "true",
                "key.serializer", ByteArraySerializer.class.getName(), "value.serializer", ByteArraySerializer.class.getName()));
        long tombstones = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (Map.Entry<Integer, Map<ByteBuffer, Boolean>> partition : live.entrySet()) {
                for (Map.Entry<ByteBuffer, Boolean> key : partition.getValue().entrySet()) {
                    if (key.getValue()) {
                        sent.add(producer.send(new ProducerRecord<>(topic, partition.getKey(), key.getKey().array(), null)));
                        tombstones++;
                    }
                }
            }
            for (Future<RecordMetadata> one : sent) {
                one.get();
            }
        }
        return tombstones;
    }

    /** Whether a record key (format 1: the lineage in bytes 1..16) belongs to one of {@code lineages}. */
    private static boolean ofLineage(byte[] key, List<byte[]> lineages) {
        for (byte[] lineage : lineages) {
            if (Arrays.equals(key, 1, 17, lineage, 0, 16)) {
                return true;
            }
        }
        return false;
    }

    /** For tests: the lineage bytes as {@code durable-journal list} prints them. */
    static String hex(byte[] lineage) {
        StringBuilder out = new StringBuilder();
        for (byte b : lineage) {
            out.append(String.format("%02x", b & 0xff));
        }
        return out.toString();
    }
}
