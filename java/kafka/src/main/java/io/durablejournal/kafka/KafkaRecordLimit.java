package io.durablejournal.kafka;

/**
 * The largest journal record (key and value bytes) Kafka takes, from the settings that bound it,
 * so the store refuses a larger one before it is sent, naming the setting, instead of the
 * producer or the broker failing the send.
 *
 * <p>Kafka measures a record as the batch it would be alone in, bounded from above (the
 * producer's {@code estimateSizeInBytesUpperBound}, record format 2, no headers): a 61-byte batch
 * header, at most 21 bytes of record framing, one byte for the header count, and the key and value
 * each with its varint length. The producer refuses a record whose bound exceeds {@code
 * max.request.size} or {@code buffer.memory}; the broker refuses a batch larger than the topic's
 * {@code max.message.bytes}. With the varint lengths taken at their widest for the limit, every
 * record this allows is accepted; it refuses at most a few bytes (two varints' width) of records
 * Kafka would still take.
 */
final class KafkaRecordLimit {
    /** Batch header (61), record framing at its widest (21), the header count (1). */
    static final int FIXED_OVERHEAD = 61 + 21 + 1;
    /** Kafka's producer defaults. */
    static final long DEFAULT_MAX_REQUEST_SIZE = 1_048_576;
    static final long DEFAULT_BUFFER_MEMORY = 33_554_432;

    final long maxRecordBytes;
    /** The setting that is the bound, with its value, for error messages. */
    final String setting;

    private KafkaRecordLimit(long maxRecordBytes, String setting) {
        this.maxRecordBytes = maxRecordBytes;
        this.setting = setting;
    }

    /** The limit for a producer configured by {@code config} writing to a topic with {@code maxMessageBytes}. */
    static KafkaRecordLimit of(KafkaStoreConfig config, long maxMessageBytes) {
        long maxRequestSize = config.number("max.request.size", DEFAULT_MAX_REQUEST_SIZE);
        long bufferMemory = config.number("buffer.memory", DEFAULT_BUFFER_MEMORY);
        long bound = maxRequestSize;
        String setting = "the producer's max.request.size=" + maxRequestSize;
        if (maxMessageBytes < bound) {
            bound = maxMessageBytes;
            setting = "max.message.bytes=" + maxMessageBytes + " of topic '" + config.topic() + "'";
        }
        if (bufferMemory < bound) {
            bound = bufferMemory;
            setting = "the producer's buffer.memory=" + bufferMemory;
        }
        long keyAndValue = bound - FIXED_OVERHEAD - 2L * varintSize(bound);
        if (keyAndValue < 1) {
            throw new IllegalArgumentException(setting + " leaves no room for a journal record");
        }
        return new KafkaRecordLimit(keyAndValue, setting + " (at most " + keyAndValue + " bytes of key and value)");
    }

    /** The bytes of an unsigned varint (zigzag of a non-negative length: twice it). */
    static int varintSize(long length) {
        long zigzag = length << 1;
        int bytes = 1;
        while ((zigzag >>>= 7) != 0) {
            bytes++;
        }
        return bytes;
    }
}
