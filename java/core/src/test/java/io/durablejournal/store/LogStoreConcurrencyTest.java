package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The log-backed store with many actions in flight: a write waits for the log's acknowledgement
 * holding neither the store nor its handle, so writes of different actions are in the log's hands
 * at the same time (which is how they share a Kafka produce request). The transport here is an
 * in-memory log whose acknowledgements come only once a whole wave of writers has submitted: a
 * store that held anything across the wait would never fill the wave.
 */
class LogStoreConcurrencyTest {
    private static final int ACTIONS = 8;

    /** One partition in memory; {@link #submit} returns at once, and acknowledges on {@code gate}. */
    private static final class WaveLog extends MemoryLog {
        private volatile CyclicBarrier gate;
        private volatile boolean refuse;

        WaveLog() {
            super("wave log", 1);
        }

        @Override
        public Appending submit(int[] partitions, byte[][] keys, byte[][] values) {
            long[] offsets = append(partitions, keys, values);
            CyclicBarrier wave = gate;
            return () -> {
                if (wave != null) {
                    // Every writer of the wave must have submitted before any is acknowledged.
                    wave.await(30, TimeUnit.SECONDS);
                }
                if (refuse) {
                    throw new java.io.IOException("the log refused the write");
                }
                return offsets;
            };
        }
    }

    private static LogActionStateStore open(WaveLog log) {
        LogActionStateStore store = LogActionStateStore.open(log, 8, 0, 7, key -> Math.floorMod(key.hashCode(), 8));
        store.startFresh(new byte[16]);
        return store;
    }

    @Test
    void writesOfActionsInFlightAreWithTheLogTogether() throws Exception {
        WaveLog log = new WaveLog();
        ExecutorService threads = Executors.newFixedThreadPool(ACTIONS);
        try (LogActionStateStore store = open(log)) {
            log.gate = new CyclicBarrier(ACTIONS);
            List<Future<DurableExecutionContext>> opened = new ArrayList<>();
            for (int a = 0; a < ACTIONS; a++) {
                String key = "user-" + a;
                // Each opens its entry: a put through the store's handle.
                opened.add(threads.submit(() -> store.openContext(key, 0, "act", EventIdentity.rootOccurrence(key, 0), null)));
            }
            List<DurableExecutionContext> journals = new ArrayList<>();
            for (Future<DurableExecutionContext> journal : opened) {
                journals.add(journal.get(60, TimeUnit.SECONDS));
            }
            List<Future<?>> calls = new ArrayList<>();
            for (int a = 0; a < ACTIONS; a++) {
                DurableExecutionContext journal = journals.get(a);
                byte[] result = ("result-" + a).getBytes(StandardCharsets.UTF_8);
                // Each records a call: a write through its own journal.
                calls.add(threads.submit(() -> journal.recordCallCompletion("call", result, null)));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
            log.gate = null;
            for (int a = 0; a < ACTIONS; a++) {
                journals.get(a).close();
                String key = "user-" + a;
                ActionState stored = store.get(key, 0, "act", EventIdentity.rootOccurrence(key, 0));
                assertEquals("result-" + a, new String(stored.getCallResults().get(0).getResultPayload(), StandardCharsets.UTF_8));
            }
            assertEquals(2L * ACTIONS, store.stats().recordsAppended(), "one record per put and per call");
            LogStoreStats stats = store.stats();
            assertEquals(ACTIONS, stats.entries());
            assertEquals(0, stats.tombstonesAppended(), "nothing pruned");
            assertEquals(StoreStats.NOT_KEPT, stats.syncs(), "the log store keeps none of the file store's counters");
            assertTrue(stats.toString().startsWith("LogStoreStats{") && stats.toString().contains("tombstonesAppended=0")
                    && !stats.toString().contains("syncs"), stats.toString());
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aWriteTheLogRefusesAfterTheWaitFailsItsCallAlone() throws Exception {
        WaveLog log = new WaveLog();
        try (LogActionStateStore store = open(log)) {
            DurableExecutionContext journal = store.openContext("user", 0, "act", EventIdentity.rootOccurrence("user", 0), null);
            log.refuse = true;
            JournalException refused = assertThrows(JournalException.class,
                    () -> journal.recordCallCompletion("call", new byte[] {1}, null));
            assertSame(JournalException.Code.STORE_IO, refused.getCode());
            assertTrue(refused.getMessage().contains("wave log"), refused.getMessage());
            assertEquals(0, journal.size(), "the journal undid the call");
            log.refuse = false;
            journal.recordCallCompletion("call", new byte[] {2}, null);
            assertEquals(1, store.get("user", 0, "act", EventIdentity.rootOccurrence("user", 0)).getCallResults().size());
            journal.close();
        }
    }
}
