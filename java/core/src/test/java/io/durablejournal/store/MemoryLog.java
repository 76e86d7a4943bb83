package io.durablejournal.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A partitioned log in memory, for a {@link LogActionStateStore} without Kafka: every partition
 * keeps its records in order, at offsets that never repeat, and appends are acknowledged at once.
 * Closing it (a store closes its transport) keeps the records, so that a store opened later over
 * the same log reads them as a restored job reads its topic.
 */
class MemoryLog implements LogTransport {
    private final String name;
    private final byte[] logId;
    /** Per partition, each record as {key, value}; a null value is a tombstone. */
    private final List<List<byte[][]>> records = new ArrayList<>();
    /** Partition reads so far, by every store over this log: how a test sees a key group loaded. */
    private int partitionReads;

    MemoryLog(String name, int partitions) {
        this.name = name;
        this.logId = Arrays.copyOf(name.getBytes(java.nio.charset.StandardCharsets.UTF_8), 16);
        for (int p = 0; p < partitions; p++) {
            records.add(new ArrayList<>());
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized long[] append(int[] partitions, byte[][] keys, byte[][] values) {
        long[] offsets = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
            List<byte[][]> partition = records.get(partitions[i]);
            offsets[i] = partition.size();
            partition.add(new byte[][] {keys[i], values[i]});
        }
        return offsets;
    }

    @Override
    public byte[] logId() {
        return logId.clone();
    }

    @Override
    public synchronized long[] endOffsets() {
        return records.stream().mapToLong(List::size).toArray();
    }

    @Override
    public int partitions() {
        return records.size();
    }

    @Override
    public synchronized void read(int partition, long endOffset, RecordBatches batches) {
        partitionReads++;
        int end = (int) endOffset;
        long[] offsets = new long[end];
        byte[][] keys = new byte[end][];
        byte[][] values = new byte[end][];
        for (int i = 0; i < end; i++) {
            offsets[i] = i;
            keys[i] = records.get(partition).get(i)[0];
            values[i] = records.get(partition).get(i)[1];
        }
        batches.accept(offsets, keys, values);
    }

    synchronized int partitionReads() {
        return partitionReads;
    }

    /** The records stay for the next store over this log. */
    @Override
    public void close() {}
}
