package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.JournalException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@link LogTransport} that breaks its contract (null where an acknowledgement or its offsets
 * belong, end offsets it cannot give) fails the write, marker or restore it was called for with
 * {@code STORE_IO} naming what went wrong, and the store stays usable: the native library calls
 * the transport through cached method ids, which must never be handed a null object.
 */
class BrokenTransportTest {
    private static final EventIdentity EVENT = EventIdentity.occurrence("input-1");

    /** Returns null from {@code submit} or from {@code Appending.await} while {@link #broken}. */
    private static final class NullReturningLog extends MemoryLog {
        private final boolean nullAppending;
        private volatile boolean broken;

        NullReturningLog(boolean nullAppending) {
            super("null-returning log", 1);
            this.nullAppending = nullAppending;
        }

        @Override
        public Appending submit(int[] partitions, byte[][] keys, byte[][] values) {
            if (broken && nullAppending) {
                return null;
            }
            long[] offsets = append(partitions, keys, values);
            return () -> broken ? null : offsets;
        }
    }

    /** {@code endOffsets} throws, or returns null or a negative offset, while {@link #broken} names how. */
    private static final class BrokenEndLog extends MemoryLog {
        private volatile String broken;

        BrokenEndLog() {
            super("broken-end log", 1);
        }

        @Override
        public synchronized long[] endOffsets() {
            if (broken == null) {
                return super.endOffsets();
            }
            switch (broken) {
                case "null":
                    return null;
                case "negative":
                    return new long[] {-1};
                default:
                    throw new IllegalStateException("the log's end is unknown");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"null", "negative", "throws"})
    void aLogEndTheTransportCannotGiveFailsTheMarkerAndTheRestoreAndLosesNothing(String how) {
        String expected = how.equals("null") ? "LogTransport.endOffsets returned null"
                : how.equals("negative") ? "LogTransport.endOffsets returned a negative offset -1"
                : "java.lang.IllegalStateException: the log's end is unknown";
        BrokenEndLog log = new BrokenEndLog();
        byte[] marker;
        try (LogActionStateStore store = LogActionStateStore.open(log, 1, 0, 0, key -> 0)) {
            store.startFresh(new byte[16]);
            store.put("user", 0, "act", EVENT, new ActionState());
            log.broken = how;
            JournalException e = assertThrows(JournalException.class, store::getRecoveryMarker);
            assertSame(JournalException.Code.STORE_IO, e.getCode());
            assertTrue(e.getMessage().contains(expected) && e.getMessage().contains("broken-end log"), e.getMessage());
            log.broken = null;
            marker = store.getRecoveryMarker();
        }
        try (LogActionStateStore restored = LogActionStateStore.open(log, 1, 0, 0, key -> 0)) {
            log.broken = how;
            JournalException e = assertThrows(JournalException.class, () -> restored.rebuildState(java.util.List.of(marker)));
            assertSame(JournalException.Code.STORE_IO, e.getCode());
            assertTrue(e.getMessage().contains(expected), e.getMessage());
        }
        log.broken = null;
        try (LogActionStateStore restored = LogActionStateStore.open(log, 1, 0, 0, key -> 0)) {
            restored.rebuildState(java.util.List.of(marker));
            assertEquals(1, restored.stats().entries(), "the entry before the marker is restored");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"LogTransport.submit returned null", "LogTransport.Appending.await returned null"})
    void aNullFromTheTransportFailsTheWriteAndLosesNothing(String expected) {
        NullReturningLog log = new NullReturningLog(expected.contains("submit"));
        try (LogActionStateStore store = LogActionStateStore.open(log, 1, 0, 0, key -> 0)) {
            store.startFresh(new byte[16]);
            log.broken = true;
            JournalException e = assertThrows(JournalException.class, () -> store.put("user", 0, "act", EVENT, new ActionState()));
            assertSame(JournalException.Code.STORE_IO, e.getCode());
            assertTrue(e.getMessage().contains(expected), e.getMessage());
            assertNull(store.get("user", 0, "act", EVENT), "the failed put was undone");
            log.broken = false;
            store.put("user", 0, "act", EVENT, new ActionState());
            assertEquals(1, store.stats().entries());
        }
    }
}
