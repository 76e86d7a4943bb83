package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.CountingCall;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalException;
import io.durablejournal.RunnerContextImpl;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The native stores beyond what every store promises ({@link ActionStateStoreContract}, which
 * {@code MemoryStoreContractTest} and {@code FileStoreContractTest} run): their StoreStats, the
 * file store's records, directory and lock, their extra calls once closed, and handles.
 */
class ActionStateStoreTest extends StoreFixture {
    private static final EventIdentity EVENT = EventIdentity.occurrence("occ-1");

    /**
     * What the Flink operators read through the interface is the StoreStats: the in-memory store
     * answers -1 (not counted) for bytes in both.
     */
    @ParameterizedTest
    @MethodSource("stores")
    void liveEntriesAndBytesAppendedAreTheStoreStats(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        store.put("k", 0, "act", EVENT, new ActionState());
        store.put("k", 1, "act", EVENT, new ActionState());
        store.pruneState("k", 0);
        assertEquals(store.stats().entries(), store.liveEntries());
        assertEquals(store.stats().bytesAppended(), store.bytesAppended());
        assertEquals(kind.equals("memory"), store.stats().bytesAppended() == -1, "StoreStats: -1 for the in-memory store");
    }

    /** One StoreStats for every store: what a store does not keep is NOT_KEPT, and its toString leaves it out. */
    @ParameterizedTest
    @MethodSource("stores")
    void theCountersAStoreDoesNotKeepAreNotKept(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        store.put("k", 0, "act", EVENT, new ActionState());
        StoreStats stats = store.stats();
        assertEquals(1, stats.entries());
        assertEquals(StoreStats.NOT_KEPT, stats.tombstonesAppended(), "only the log store has tombstones");
        assertEquals(StoreStats.NOT_KEPT, stats.tombstonesPending());
        assertEquals(StoreStats.NOT_KEPT, stats.recordsLoaded());
        assertEquals(kind.equals("memory"), stats.syncs() == StoreStats.NOT_KEPT, "only the file store fsyncs");
        assertTrue(stats.toString().startsWith("StoreStats{entries=1"), stats.toString());
        assertFalse(stats.toString().contains("tombstones"), stats.toString());
        assertEquals(kind.equals("file"), stats.toString().contains("syncs="), stats.toString());
    }

    @Test
    void eachJournalMutationIsOneDeltaRecordOfConstantSize() throws Exception {
        NativeActionStateStore store = open("file");
        long[] recordBytes = new long[40];
        try (DurableExecutionContext ctx = store.openContext("user", 0, "act", EVENT, new ActionState())) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            for (int i = 0; i < recordBytes.length; i++) {
                StoreStats before = store.stats();
                runner.durableExecute(CountingCall.returning(String.format("tool-call:%04d", i), "payload"));
                StoreStats after = store.stats();
                assertEquals(before.recordsAppended() + 1, after.recordsAppended(), "one record per call");
                recordBytes[i] = after.bytesAppended() - before.bytesAppended();
            }
        }
        assertEquals(recordBytes[0], recordBytes[recordBytes.length - 1],
                "call 40 costs what call 1 cost: the whole state is not rewritten: " + Arrays.toString(recordBytes));
    }

    @Test
    void aReopenedFileStoreCreatesNothingAndRecoversEveryRecord() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("reopen"));
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            assertTrue(store.stats().createdOnOpen() > 0, "a new directory gets its files");
            store.put(5L, 1, "act", EVENT, new ActionState());
            try (DurableExecutionContext ctx = store.openContext(5L, 2, "act", EVENT, null)) {
                new RunnerContextImpl(ctx).durableExecute(CountingCall.returning("tool-call:once", "v"));
            }
        }
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            assertEquals(0, store.stats().createdOnOpen());
            assertEquals(3, store.stats().recoveredRecords(), "two puts and a call");
        }
    }

    @Test
    void aSecondOpenOfTheSameDirectoryIsRefusedUntilTheFirstCloses() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("locked"));
        NativeActionStateStore first = track(ActionStateStores.openFileStore(dir));
        JournalException refused = assertThrows(JournalException.class, () -> ActionStateStores.openFileStore(dir));
        assertEquals(JournalException.Code.STORE_LOCKED, refused.getCode());
        assertTrue(refused.getMessage().contains(dir.toString()), refused.getMessage());
        first.close();
        track(ActionStateStores.openFileStore(dir)).close();
    }

    @Test
    void aBadDirectoryIsAnErrorNamingThePath() throws Exception {
        Path missing = tmp.resolve("does-not-exist");
        JournalException noDir = assertThrows(JournalException.class, () -> ActionStateStores.openFileStore(missing));
        assertEquals(JournalException.Code.STORE_IO, noDir.getCode());
        assertTrue(noDir.getMessage().contains(missing.toString()), noDir.getMessage());
        Path file = Files.write(tmp.resolve("a-file"), new byte[] {1});
        JournalException notDir = assertThrows(JournalException.class, () -> ActionStateStores.openFileStore(file));
        assertTrue(notDir.getMessage().contains(file.toString()), notDir.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FileStoreOptions.defaults().groupCommit(0));
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aClosedNativeStoreSaysSoAndRefusesItsOwnCallsToo(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        store.close();
        assertTrue(store.isClosed());
        assertThrows(IllegalStateException.class, store::sync);
        assertThrows(IllegalStateException.class, store::stats);
    }

    @Test
    void aFileStoreRefusesTheMarkerOfAnotherDirectory() throws Exception {
        byte[] marker = open("file").getRecoveryMarker();
        NativeActionStateStore other = open("file");
        JournalException foreign = assertThrows(JournalException.class, () -> other.rebuildState(Collections.singletonList(marker)));
        assertEquals(JournalException.Code.ILLEGAL_STATE, foreign.getCode());
    }

    @Test
    void noJavaCodeCanWrapARawNativeHandle() {
        for (Constructor<?> c : DurableExecutionContext.class.getDeclaredConstructors()) {
            if (Arrays.asList(c.getParameterTypes()).contains(long.class)) {
                assertTrue(Modifier.isPrivate(c.getModifiers()), "only native code may call " + c);
            }
        }
        for (Method m : DurableExecutionContext.class.getMethods()) {
            boolean takesHandle = Modifier.isStatic(m.getModifiers()) && Arrays.asList(m.getParameterTypes()).contains(long.class);
            assertFalse(takesHandle, "no public factory over a raw handle: " + m);
        }
    }
}
