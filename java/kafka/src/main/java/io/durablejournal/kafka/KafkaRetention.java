package io.durablejournal.kafka;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * What a Kafka store retains of completed actions ({@link KafkaStoreConfig#retainCompleted}): at
 * most {@code maxCount} copies per subtask's store, none older than {@code maxAge}, in a topic of
 * their own (docs/replay.md, "Retention on Kafka"). Immutable and serializable.
 */
final class KafkaRetention implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The retained topic's name when none is given: the journal topic's with this suffix. */
    static final String TOPIC_SUFFIX = "-retained";

    final long maxAgeMillis;
    final long maxCount;
    /** Null: the journal topic's name + {@link #TOPIC_SUFFIX}. */
    final String topic;
    final String planDigest;

    KafkaRetention(Duration maxAge, long maxCount, String topic, String planDigest) {
        Objects.requireNonNull(maxAge, "maxAge");
        if (maxAge.isNegative() || maxAge.isZero() || maxCount < 1) {
            throw new IllegalArgumentException("retention needs a positive age and count, not " + maxAge + " and " + maxCount);
        }
        this.maxAgeMillis = maxAge.toMillis();
        this.maxCount = maxCount;
        this.topic = topic;
        this.planDigest = planDigest;
    }

    KafkaRetention withTopic(String retainedTopic) {
        if (Objects.requireNonNull(retainedTopic, "retainedTopic").isEmpty()) {
            throw new IllegalArgumentException("retainedTopic must not be empty");
        }
        return new KafkaRetention(Duration.ofMillis(maxAgeMillis), maxCount, retainedTopic, planDigest);
    }

    KafkaRetention withPlanDigest(String digest) {
        return new KafkaRetention(Duration.ofMillis(maxAgeMillis), maxCount, topic, digest);
    }

    String topicFor(String journalTopic) {
        return topic != null ? topic : journalTopic + TOPIC_SUFFIX;
    }
}
