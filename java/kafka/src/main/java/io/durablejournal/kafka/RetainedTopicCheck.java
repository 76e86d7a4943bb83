package io.durablejournal.kafka;

import java.util.Collections;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What retention needs of the retained topic, checked when a store that retains opens: it exists,
 * compaction keeps one copy per key (the count bound: a store writes at most {@code maxCount}
 * keys) and deletion by age removes copies older than the age bound. A topic that would keep
 * copies past either bound is refused, naming the setting; the journal topic is not involved.
 */
final class RetainedTopicCheck {
    private RetainedTopicCheck() {}

    /** The retained topic's partition count, once it passed. */
    static int check(Admin admin, KafkaStoreConfig config, long timeoutMs) throws Exception {
        KafkaRetention retention = config.retention();
        String topic = config.retainedTopicName();
        String create = "kafka-topics.sh --create --topic " + topic + " --config cleanup.policy=compact,delete --config retention.ms="
                + retention.maxAgeMillis;
        TopicDescription description;
        Config settings;
        try {
            description = admin.describeTopics(Collections.singleton(topic)).allTopicNames().get(timeoutMs, TimeUnit.MILLISECONDS)
                    .get(topic);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            settings = admin.describeConfigs(Collections.singleton(resource)).all().get(timeoutMs, TimeUnit.MILLISECONDS).get(resource);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw refuse(config, topic, "does not exist; create it: " + create);
            }
            throw e;
        }
        String policy = value(settings, "cleanup.policy");
        if (!policy.contains("compact") || !policy.contains("delete")) {
            throw refuse(config, topic, "has cleanup.policy=" + policy + ": the count bound needs compaction (one copy per key)"
                    + " and the age bound deletion by age; set cleanup.policy=compact,delete");
        }
        long retentionMs = Long.parseLong(value(settings, "retention.ms"));
        if (retentionMs < 0 || retentionMs > retention.maxAgeMillis) {
            throw refuse(config, topic, "has retention.ms=" + retentionMs + ", which keeps copies longer than the age bound of "
                    + retention.maxAgeMillis + " ms; set retention.ms=" + retention.maxAgeMillis);
        }
        return description.partitions().size();
    }

    private static String value(Config settings, String name) {
        ConfigEntry entry = settings.get(name);
        return entry == null || entry.value() == null ? "" : entry.value();
    }

    private static IllegalStateException refuse(KafkaStoreConfig config, String topic, String why) {
        return new IllegalStateException("the journal store cannot retain completed actions of " + config + ": the retained topic '"
                + topic + "' " + why);
    }
}
