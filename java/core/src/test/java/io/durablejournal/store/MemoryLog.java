package io.durablejournal.store;

import java.util.ArrayList;
import java.util.List;

/**
 * A log of one partition in memory, for the log store's tests: a submitted batch is stored at
 * once, and {@link #acknowledge} says how it is acknowledged (at once, unless a test overrides it).
 */
class MemoryLog implements LogTransport {
    private final String name;
    private final List<byte[]> keys = new ArrayList<>();
    private final List<byte[]> values = new ArrayList<>();

    MemoryLog(String name) {
        this.name = name;
    }

    /** The acknowledgement of a batch stored at {@code offsets}. */
    Appending acknowledge(long[] offsets) {
        return () -> offsets;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public byte[] logId() {
        return new byte[16];
    }

    @Override
    public int partitions() {
        return 1;
    }

    @Override
    public long[] append(int[] partitions, byte[][] newKeys, byte[][] newValues) throws Exception {
        return submit(partitions, newKeys, newValues).await();
    }

    @Override
    public synchronized Appending submit(int[] partitions, byte[][] newKeys, byte[][] newValues) {
        long[] offsets = new long[newKeys.length];
        for (int i = 0; i < newKeys.length; i++) {
            offsets[i] = keys.size();
            keys.add(newKeys[i]);
            values.add(newValues[i]);
        }
        return acknowledge(offsets);
    }

    @Override
    public synchronized long[] endOffsets() {
        return new long[] {keys.size()};
    }

    @Override
    public synchronized void read(int partition, long endOffset, RecordBatches records) {
        int end = (int) endOffset;
        long[] offsets = new long[end];
        for (int i = 0; i < end; i++) {
            offsets[i] = i;
        }
        records.accept(offsets, keys.subList(0, end).toArray(new byte[0][]), values.subList(0, end).toArray(new byte[0][]));
    }

    @Override
    public void close() {}
}
