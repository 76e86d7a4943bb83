package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.DurableExecutionContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When each durability mode of the file store fsyncs, counted by the store itself. */
class FileStoreDurabilityTest {
    @TempDir
    Path tmp;

    /** Opens an entry and records {@code calls} calls: {@code calls + 1} records. */
    private static void write(NativeActionStateStore store, int calls) {
        try (DurableExecutionContext journal = store.openContext("user", 0, "act", EventIdentity.occurrence("occ"), null)) {
            for (int i = 0; i < calls; i++) {
                journal.recordCallCompletion("call-" + i, new byte[] {1}, null);
            }
        }
    }

    @Test
    void syncEachPutFsyncsEveryRecord() {
        try (NativeActionStateStore store = ActionStateStores.openFileStore(tmp, FileStoreOptions.defaults().syncEachPut())) {
            write(store, 9);
            assertEquals(10, store.stats().syncs());
        }
    }

    @Test
    void groupCommitFsyncsOncePerBatchAndAtEachMarker() {
        try (NativeActionStateStore store = ActionStateStores.openFileStore(tmp, FileStoreOptions.defaults().groupCommit(4))) {
            write(store, 9);
            assertEquals(2, store.stats().syncs(), "records 4 and 8 completed a batch");
            store.getRecoveryMarker();
            assertEquals(3, store.stats().syncs(), "a checkpoint's marker makes the rest durable");
        }
    }

    @Test
    void osOnlyFsyncsOnlyForAMarker() {
        try (NativeActionStateStore store = ActionStateStores.openFileStore(tmp, FileStoreOptions.defaults().osOnly())) {
            write(store, 99);
            assertEquals(0, store.stats().syncs());
            store.getRecoveryMarker();
            assertEquals(1, store.stats().syncs());
        }
    }

    @Test
    void groupCommitWithinABoundFsyncsAWaitingRecordWithoutAnotherWrite() {
        Duration bound = Duration.ofMillis(20);
        FileStoreOptions options = FileStoreOptions.defaults().groupCommitWithin(1000, bound);
        assertEquals(bound, options.getMaxSyncDelay());
        try (NativeActionStateStore store = ActionStateStores.openFileStore(tmp, options)) {
            write(store, 1);
            // The timer is the feature under test: wait for it, with a generous deadline.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (store.stats().syncs() == 0 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(bound.toNanos());
            }
            assertEquals(1, store.stats().syncs(), "the acknowledged records were fsynced by the store's timer");
        }
        assertFalse(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("durable-journal fsync timer")
                && t.getName().contains(tmp.toString())), "close stopped the timer");
        assertThrows(IllegalArgumentException.class, () -> FileStoreOptions.defaults().groupCommitWithin(8, Duration.ZERO));
        assertTrue(options.toString().contains("within 20 ms"), options.toString());
    }
}
