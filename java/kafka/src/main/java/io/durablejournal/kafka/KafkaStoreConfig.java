package io.durablejournal.kafka;

import java.io.IOException;
import java.io.Reader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Where a Kafka-backed journal store writes: the cluster, the topic, and Kafka client settings.
 * Immutable and serializable (it travels in the job graph inside {@link KafkaStoreFactory}).
 *
 * <p>The topic must exist with {@code cleanup.policy=compact} (see {@code docs/kafka-store.md});
 * the store refuses to start otherwise. Client settings are passed to Kafka's producer and
 * consumer as given, except the ones durability depends on, which the store sets and a setting
 * here may not weaken: {@code acks=all} and {@code enable.idempotence=true}.
 *
 * <p>Secrets among the settings (passwords, {@code sasl.jaas.config}, keys, tokens) never appear
 * in what the store prints: {@link #toString} names the topic and the servers only, and every
 * error message the store builds from a Kafka client's goes through {@link #redact}. They do
 * travel in the job graph (this object is serialized with it), as every Flink connector's do;
 * see {@code docs/security.md}.
 */
public final class KafkaStoreConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Settings the store uses unless {@link #with} overrides them. */
    static final Map<String, String> DEFAULTS;

    static {
        Map<String, String> defaults = new TreeMap<>();
        // A durable call waits for its record's acknowledgement, retries included, at most
        // max.block.ms (metadata) + delivery.timeout.ms before it fails with STORE_IO: long
        // enough to ride out a broker restart or a leader election (Kafka's own defaults).
        defaults.put("delivery.timeout.ms", "120000");
        defaults.put("request.timeout.ms", "30000");
        defaults.put("max.block.ms", "60000");
        defaults.put("linger.ms", "0");
        // Admin and consumer calls (topic checks, end offsets, rebuild reads).
        defaults.put("default.api.timeout.ms", "60000");
        DEFAULTS = Collections.unmodifiableMap(defaults);
    }

    private final String bootstrapServers;
    private final String topic;
    private final TreeMap<String, String> settings;
    /** Null: completed actions are not retained (the default). */
    private final KafkaRetention retention;

    private KafkaStoreConfig(String bootstrapServers, String topic, TreeMap<String, String> settings, KafkaRetention retention) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
        this.settings = settings;
        this.retention = retention;
    }

    /** The topic {@code topic} on the cluster reached through {@code bootstrapServers} ({@code host:port,...}). */
    public static KafkaStoreConfig of(String bootstrapServers, String topic) {
        if (Objects.requireNonNull(bootstrapServers, "bootstrapServers").isEmpty()) {
            throw new IllegalArgumentException("bootstrapServers must not be empty");
        }
        if (Objects.requireNonNull(topic, "topic").isEmpty()) {
            throw new IllegalArgumentException("topic must not be empty");
        }
        return new KafkaStoreConfig(bootstrapServers, topic, new TreeMap<>(DEFAULTS), null);
    }

    /** The same with one Kafka client setting added or replaced (e.g. security or timeouts). */
    public KafkaStoreConfig with(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (key.equals("acks") && !value.equals("all") && !value.equals("-1")) {
            throw new IllegalArgumentException("acks=" + value + " would acknowledge a journal record before every in-sync"
                    + " replica has it; the store needs acks=all");
        }
        if (key.equals("enable.idempotence") && !value.equals("true")) {
            throw new IllegalArgumentException("enable.idempotence=" + value + " lets a retried send duplicate or reorder"
                    + " journal records; the store needs the idempotent producer");
        }
        TreeMap<String, String> copy = new TreeMap<>(settings);
        copy.put(key, value);
        return new KafkaStoreConfig(bootstrapServers, topic, copy, retention);
    }

    /**
     * The same, keeping a copy of each action as it completes, with its journal, after the
     * checkpoint prune removed it, for replays (docs/replay.md, "Retention on Kafka"): at most
     * {@code maxCount} per subtask's store, none older than {@code maxAge}. The copies go to a
     * topic of their own, {@code <topic>-retained} unless {@link #retainedTopic} names another,
     * which must exist with {@code cleanup.policy=compact,delete} and {@code retention.ms} at most
     * {@code maxAge}. The journal topic gets exactly the records it gets without this. Off by
     * default.
     */
    public KafkaStoreConfig retainCompleted(Duration maxAge, long maxCount) {
        KafkaRetention asked = new KafkaRetention(maxAge, maxCount, null, null);
        if (retention != null) {
            asked = asked.withPlanDigest(retention.planDigest);
            asked = retention.topic == null ? asked : asked.withTopic(retention.topic);
        }
        return new KafkaStoreConfig(bootstrapServers, topic, settings, asked);
    }

    /** The same with the retained copies in {@code retainedTopic}; needs {@link #retainCompleted} first. */
    public KafkaStoreConfig retainedTopic(String retainedTopic) {
        return new KafkaStoreConfig(bootstrapServers, topic, settings, requireRetention("retainedTopic").withTopic(retainedTopic));
    }

    /** The same naming the agent plan that runs in each retained copy (e.g. a git revision); needs {@link #retainCompleted} first. */
    public KafkaStoreConfig planDigest(String digest) {
        return new KafkaStoreConfig(bootstrapServers, topic, settings, requireRetention("planDigest").withPlanDigest(digest));
    }

    private KafkaRetention requireRetention(String option) {
        if (retention == null) {
            throw new IllegalStateException(option + " needs retainCompleted(maxAge, maxCount) first");
        }
        return retention;
    }

    /** What is retained, or null (off). */
    KafkaRetention retention() {
        return retention;
    }

    /** The topic retained copies go to; with retention off, the one {@link #retainCompleted} would use. */
    public String retainedTopicName() {
        return retention == null ? topic + KafkaRetention.TOPIC_SUFFIX : retention.topicFor(topic);
    }

    /**
     * The same with every setting of a Java properties file added or replaced, as {@link #with}
     * would: the file {@code KafkaJournalTool --config} reads too, so a job and the tool share
     * one file of client settings (and secrets stay out of command lines).
     */
    public KafkaStoreConfig withSettingsFrom(Path propertiesFile) throws IOException {
        KafkaStoreConfig config = this;
        for (Map.Entry<String, String> setting : readSettings(propertiesFile).entrySet()) {
            config = config.with(setting.getKey(), setting.getValue());
        }
        return config;
    }

    /** The settings of a Java properties file (UTF-8), in key order. */
    static TreeMap<String, String> readSettings(Path propertiesFile) throws IOException {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(propertiesFile, StandardCharsets.UTF_8)) {
            props.load(in);
        }
        TreeMap<String, String> settings = new TreeMap<>();
        for (String name : props.stringPropertyNames()) {
            settings.put(name, props.getProperty(name));
        }
        return settings;
    }

    /** {@code text} with the value of every secret setting, and each secret inside a JAAS config, as {@code [hidden]}. */
    String redact(String text) {
        return ClientSecrets.of(settings).redact(text);
    }

    /** {@code failure} with the secrets of these settings hidden from every message of its chain. */
    Throwable redact(Throwable failure) {
        return ClientSecrets.of(settings).redact(failure);
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public String topic() {
        return topic;
    }

    /** The client settings, the store's own included, as Kafka clients take them. */
    Properties clientProperties() {
        Properties props = new Properties();
        props.putAll(settings);
        props.put("bootstrap.servers", bootstrapServers);
        return props;
    }

    /** A client setting as a number, or {@code fallback} when it is not set. */
    long number(String key, long fallback) {
        String value = settings.get(key);
        return value == null ? fallback : Long.parseLong(value.trim());
    }

    @Override
    public String toString() {
        return "Kafka topic '" + topic + "' at " + bootstrapServers;
    }
}
