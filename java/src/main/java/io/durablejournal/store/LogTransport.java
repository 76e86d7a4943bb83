package io.durablejournal.store;

/**
 * What a {@link LogActionStateStore} needs from a partitioned, replicated log (a Kafka topic): the
 * transport only. The records, their keys, partitions and the rebuild logic are the native store's;
 * an implementation moves bytes and waits for acknowledgements.
 *
 * <p>{@link #append} is called by the native store, on the thread that runs the store operation
 * (a durable call, a put), with the store locked: it must return only once the log has
 * acknowledged every record, and must fail (throw) within a bounded time when it cannot.
 */
public interface LogTransport extends AutoCloseable {
    /** The log, for people, used in error messages: e.g. {@code Kafka topic 'journal' at host:9092}. */
    String name();

    /** 16 bytes naming the log itself (Kafka's topic id): a log created again under the same name has others. */
    byte[] logId();

    /** The number of partitions; fixed for the life of the log's journals. */
    int partitions();

    /**
     * Appends {@code keys[i]}/{@code values[i]} to partition {@code partitions[i]}, in order (order
     * matters within a partition), and returns the offset each record got once all are
     * acknowledged. A null value is a tombstone. Throws when any record is not acknowledged.
     */
    long[] append(int[] partitions, byte[][] keys, byte[][] values) throws Exception;

    /**
     * The largest record, in bytes of its key and value, the log accepts, or 0 (the default) when
     * it sets no limit of its own. The store refuses a larger record before {@link #append} sees it
     * ({@code SIZE_LIMIT_EXCEEDED}, naming {@link #recordLimitSetting()}).
     */
    default long maxRecordBytes() {
        return 0;
    }

    /** The setting {@link #maxRecordBytes()} follows, named in errors (e.g. {@code max.message.bytes=1048588 of topic 'j'}). */
    default String recordLimitSetting() {
        return name() + "'s record limit";
    }

    /** Per partition, the offset the next record will get. */
    long[] endOffsets() throws Exception;

    /**
     * Reads {@code partition} from its first record up to, not including, {@code endOffset}, in
     * order, handing the records to {@code records} in batches (a null value is a tombstone).
     */
    void read(int partition, long endOffset, RecordBatches records) throws Exception;

    @Override
    void close();

    /** Receives what {@link #read} reads. */
    @FunctionalInterface
    interface RecordBatches {
        void accept(long[] offsets, byte[][] keys, byte[][] values);
    }
}
