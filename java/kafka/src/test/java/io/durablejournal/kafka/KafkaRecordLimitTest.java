package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The record limit's arithmetic and which setting it names (the broker's side of it is in
 * KafkaStoreContractTest: the largest record allowed is acknowledged, the next is refused).
 */
class KafkaRecordLimitTest {
    private static final KafkaStoreConfig CONFIG = KafkaStoreConfig.of("localhost:9092", "journal");

    @Test
    void varintLengthsAreKafkasZigzagOnes() {
        assertEquals(1, KafkaRecordLimit.varintSize(0));
        assertEquals(1, KafkaRecordLimit.varintSize(63));
        assertEquals(2, KafkaRecordLimit.varintSize(64));
        assertEquals(3, KafkaRecordLimit.varintSize(20_000));
        assertEquals(4, KafkaRecordLimit.varintSize(1_048_576), "2^21 needs a fourth byte once zigzagged");
    }

    @Test
    void theSmallestBoundIsTheLimitAndIsNamed() {
        KafkaRecordLimit topic = KafkaRecordLimit.of(CONFIG, 20_000);
        assertEquals(20_000 - 83 - 6, topic.maxRecordBytes);
        assertTrue(topic.setting.startsWith("max.message.bytes=20000 of topic 'journal'"), topic.setting);

        KafkaRecordLimit producer = KafkaRecordLimit.of(CONFIG, Long.MAX_VALUE);
        assertEquals(1_048_576 - 83 - 8, producer.maxRecordBytes, "the producer's default max.request.size");
        assertTrue(producer.setting.startsWith("the producer's max.request.size=1048576"), producer.setting);

        KafkaRecordLimit buffer = KafkaRecordLimit.of(CONFIG.with("max.request.size", "90000000")
                .with("buffer.memory", "5000000"), 80_000_000);
        assertEquals(5_000_000 - 83 - 8, buffer.maxRecordBytes);
        assertTrue(buffer.setting.startsWith("the producer's buffer.memory=5000000"), buffer.setting);
    }

    @Test
    void aBoundWithNoRoomForARecordIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> KafkaRecordLimit.of(CONFIG, 80));
    }
}
