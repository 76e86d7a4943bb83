package io.durablejournal.store;

import io.durablejournal.internal.NativeHandle;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The clock of group commit within a time bound ({@link FileStoreOptions#groupCommitWithin}): one
 * daemon thread per store that asks the native store to fsync whatever is unsynced every {@code
 * maxDelay} (a store with nothing unsynced does no fsync). It holds the store's handle, not the
 * store, so a store dropped without close is still collected; the timer then finds the handle
 * closed and stops. A failed fsync stops it too: the store refuses every later write and reports it.
 */
final class SyncTimer {
    private final ScheduledExecutorService clock;
    /** The clock's thread, once started: {@link #stop()} waits for it to end. */
    private volatile Thread thread;

    SyncTimer(NativeHandle store, Duration maxDelay, String name) {
        clock = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread started = new Thread(runnable, "durable-journal fsync timer (" + name + ")");
            started.setDaemon(true);
            thread = started;
            return started;
        });
        long period = Math.max(1, maxDelay.toNanos());
        clock.scheduleWithFixedDelay(() -> {
            try {
                store.accept(StoreJni::sync);
            } catch (RuntimeException closedOrFailed) {
                clock.shutdown();
            }
        }, period, period, TimeUnit.NANOSECONDS);
    }

    /**
     * Stops the clock and waits for a tick in progress and for its thread to end (termination of
     * the executor is signalled before its thread exits).
     */
    void stop() {
        clock.shutdownNow();
        try {
            clock.awaitTermination(1, TimeUnit.MINUTES);
            Thread started = thread;
            if (started != null && started != Thread.currentThread()) {
                started.join(TimeUnit.MINUTES.toMillis(1));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
