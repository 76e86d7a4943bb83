package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.JournalException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A {@link LogTransport} that breaks its contract (null where an acknowledgement or its offsets
 * belong) fails the write it was called for with {@code STORE_IO} naming what it returned, and
 * the store stays usable: the native library calls the transport through cached method ids,
 * which must never be handed a null object.
 */
class BrokenTransportTest {
    private static final EventIdentity EVENT = EventIdentity.occurrence("input-1");

    /** An in-memory log of one partition that returns null from {@code submit} or {@code await} on request. */
    private static final class NullReturningLog implements LogTransport {
        private final List<byte[]> keys = new ArrayList<>();
        private volatile boolean nullAppending;
        private volatile boolean nullOffsets;

        @Override
        public String name() {
            return "null-returning log";
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
        public long[] append(int[] partitions, byte[][] newKeys, byte[][] values) {
            throw new AssertionError("the store submits; it never appends directly");
        }

        @Override
        public synchronized Appending submit(int[] partitions, byte[][] newKeys, byte[][] values) {
            if (nullAppending) {
                return null;
            }
            long[] offsets = new long[newKeys.length];
            for (int i = 0; i < newKeys.length; i++) {
                offsets[i] = keys.size();
                keys.add(newKeys[i]);
            }
            return () -> nullOffsets ? null : offsets;
        }

        @Override
        public synchronized long[] endOffsets() {
            return new long[] {keys.size()};
        }

        @Override
        public void read(int partition, long endOffset, RecordBatches records) {}

        @Override
        public void close() {}
    }

    private static LogActionStateStore open(NullReturningLog log) {
        LogActionStateStore store = LogActionStateStore.open(log, 1, 0, 0, key -> 0);
        store.startFresh(new byte[16]);
        return store;
    }

    @Test
    void aSubmitThatReturnsNullFailsTheWriteAndLosesNothing() {
        NullReturningLog log = new NullReturningLog();
        try (LogActionStateStore store = open(log)) {
            log.nullAppending = true;
            JournalException e = assertThrows(JournalException.class, () -> store.put("user", 0, "act", EVENT, new ActionState()));
            assertSame(JournalException.Code.STORE_IO, e.getCode());
            assertTrue(e.getMessage().contains("LogTransport.submit returned null"), e.getMessage());
            assertNull(store.get("user", 0, "act", EVENT), "the failed put was undone");
            log.nullAppending = false;
            store.put("user", 0, "act", EVENT, new ActionState());
            assertEquals(1, store.stats().entries());
        }
    }

    @Test
    void anAcknowledgementWithoutOffsetsFailsTheWriteAndLosesNothing() {
        NullReturningLog log = new NullReturningLog();
        try (LogActionStateStore store = open(log)) {
            log.nullOffsets = true;
            JournalException e = assertThrows(JournalException.class, () -> store.put("user", 0, "act", EVENT, new ActionState()));
            assertSame(JournalException.Code.STORE_IO, e.getCode());
            assertTrue(e.getMessage().contains("LogTransport.Appending.await returned null"), e.getMessage());
            assertNull(store.get("user", 0, "act", EVENT), "the failed put was undone");
            log.nullOffsets = false;
            store.put("user", 0, "act", EVENT, new ActionState());
            assertEquals(1, store.stats().entries());
        }
    }
}
