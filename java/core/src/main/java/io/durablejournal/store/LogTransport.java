package io.durablejournal.store;

/**
 * What a {@link LogActionStateStore} needs from a partitioned, replicated log (a Kafka topic): the
 * transport only. The records, their keys, partitions and the rebuild logic are the native store's;
 * an implementation moves bytes and waits for acknowledgements.
 *
 * <p>The native store writes through {@link #submit}, on the thread that runs the store operation
 * (a durable call, a put): it hands the records over with the store locked and returns at once;
 * {@link Appending#await} then waits for the log's acknowledgement with the store unlocked, so the
 * writes of many actions in flight share the log's requests. The wait must end (return or throw)
 * within a bounded time. An implementation that has only {@link #append} works unchanged, one
 * write at a time.
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

    /**
     * Hands the records of {@link #append} to the log without waiting: records submitted later
     * must land after them in each partition. The default appends at once.
     */
    default Appending submit(int[] partitions, byte[][] keys, byte[][] values) throws Exception {
        long[] offsets = append(partitions, keys, values);
        return () -> offsets;
    }

    /**
     * Per partition, the offset the next record will get. The native store calls it for a marker
     * and a restore (once each), with the store locked.
     */
    long[] endOffsets() throws Exception;

    /**
     * Reads {@code partition} from its first record up to, not including, {@code endOffset}, in
     * order, handing the records to {@code records} in batches (a null value is a tombstone).
     */
    void read(int partition, long endOffset, RecordBatches records) throws Exception;

    /**
     * As {@link #read(int, long, RecordBatches)}, from {@code startOffset} on: a restore starts
     * where its checkpoint's markers say no live journal has a record before. The default reads
     * from the first record and skips the earlier ones.
     */
    default void read(int partition, long startOffset, long endOffset, RecordBatches records) throws Exception {
        read(partition, endOffset, (offsets, keys, values) -> {
            int skip = 0;
            while (skip < offsets.length && offsets[skip] < startOffset) {
                skip++;
            }
            if (skip < offsets.length) {
                records.accept(java.util.Arrays.copyOfRange(offsets, skip, offsets.length),
                        java.util.Arrays.copyOfRange(keys, skip, keys.length), java.util.Arrays.copyOfRange(values, skip, values.length));
            }
        });
    }

    @Override
    void close();

    /** Records {@link #submit}ted and not yet known to be acknowledged. */
    @FunctionalInterface
    interface Appending {
        /**
         * Returns the offset each record got once the log acknowledged all of them; throws when
         * any is not acknowledged (it may or may not be in the log).
         */
        long[] await() throws Exception;
    }

    /** Receives what {@link #read} reads. */
    @FunctionalInterface
    interface RecordBatches {
        void accept(long[] offsets, byte[][] keys, byte[][] values);
    }
}
