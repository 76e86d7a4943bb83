package io.durablejournal.testing;

import java.util.concurrent.CountDownLatch;

/**
 * The checkpoint a staged failover waits for: the first one whose snapshot starts once the run is
 * ready (what the test needs in flight is in flight, what must be done is done), and the moment it
 * has completed. The job's source names it when it snapshots and reports completions; an action
 * held in flight waits for {@link #awaitCompleted()}. Nothing here looks at a clock.
 */
public final class CheckpointWitness {
    private final CountDownLatch completed = new CountDownLatch(1);
    private volatile long checkpoint = -1;

    /** The source snapshots {@code checkpointId}: the witness, if there is none yet and the run is {@code ready}. */
    public void snapshotTaken(long checkpointId, boolean ready) {
        if (checkpoint < 0 && ready) {
            checkpoint = checkpointId;
        }
    }

    /** Checkpoint {@code checkpointId} completed: releases the waiters once it is the witness or a later one. */
    public void checkpointCompleted(long checkpointId) {
        long witness = checkpoint;
        if (witness >= 0 && checkpointId >= witness) {
            completed.countDown();
        }
    }

    /** Waits until the witness (or a later checkpoint) has completed. */
    public void awaitCompleted() throws InterruptedException {
        completed.await();
    }

    /** The witness checkpoint's id; -1 while there is none. */
    public long checkpoint() {
        return checkpoint;
    }
}
