package io.durablejournal.flink.internal;

import io.durablejournal.JournalException;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.SubtaskScope;
import io.durablejournal.store.ActionStateStore;
import java.util.List;
import java.util.Objects;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a journaling operator opens its subtask's store when it starts: our operators ({@link
 * DurableActionFunction}, {@link DurableAsyncActions}) and Flink Agents' operator through the
 * adapter ({@code io.durablejournal.flinkagents}) alike, so that every store factory is opened
 * the same way whichever operator runs it.
 *
 * <p>Refusals that another attempt would meet again fail the job for good ({@link
 * SuppressRestartsException}) with a message that says what to do.
 */
public final class SubtaskStores {
    private static final Logger LOG = LoggerFactory.getLogger(SubtaskStores.class);

    private SubtaskStores() {}

    /**
     * Refuses a restore at another parallelism than the checkpoint's, unless the factory's stores
     * restore at any parallelism ({@link ActionStateStoreFactory#restoresAtAnyParallelism()}): a
     * per-subtask store (the file store) holds the journals of its own keys only, and keys move to
     * other subtasks at another parallelism.
     *
     * @param checkpointed the parallelism each subtask recorded in the checkpoint
     */
    public static void checkRestoredParallelism(ActionStateStoreFactory factory, Iterable<Integer> checkpointed,
            int currentParallelism) {
        if (factory.restoresAtAnyParallelism()) {
            return;
        }
        for (int parallelism : checkpointed) {
            if (parallelism != currentParallelism) {
                throw new SuppressRestartsException(new IllegalStateException("the checkpoint was taken at parallelism "
                        + parallelism + " and the job now runs at " + currentParallelism + ": each subtask's store holds the"
                        + " journals of its own keys, and keys move to other subtasks at another parallelism; restore at"
                        + " parallelism " + parallelism + ", or use a store that restores at any parallelism (the Kafka store)"));
            }
        }
    }

    /**
     * Opens the store of the subtask {@code scope} describes ({@link
     * ActionStateStoreFactory#open(SubtaskScope)}). A restored subtask's store is checked against
     * the checkpoint's {@code recoveryMarkers} ({@link ActionStateStore#rebuildState}: a replaced,
     * wiped or older store fails the restore instead of silently re-running journaled calls) and
     * keeps the entries written after them, the journals of the records Flink replays. A store
     * that restores at any parallelism is handed the markers of every subtask of the checkpoint
     * and rebuilds the journals of the keys the scope's key groups now hold.
     *
     * <p>A first attempt that starts without a checkpoint numbers its records from 0 again, so
     * entries an earlier run left in the store ({@link ActionStateStore#liveEntries()}) would be
     * taken for this run's journals: that is refused for good. A later attempt without a
     * checkpoint (the job failed before its first checkpoint completed) keeps them: its first
     * attempt found the store empty, so they are that attempt's journals, which the replayed
     * records resume. (A Kafka store opened for a first attempt begins a history of its own,
     * named by the job id, and holds none.)
     */
    public static ActionStateStore open(ActionStateStoreFactory factory, SubtaskScope scope, List<byte[]> recoveryMarkers)
            throws Exception {
        Objects.requireNonNull(recoveryMarkers, "recoveryMarkers");
        ActionStateStore store = Objects.requireNonNull(factory.open(scope), "the store factory returned null");
        try {
            if (scope.restored()) {
                rebuild(store, recoveryMarkers);
            } else if (scope.attemptNumber() == 0) {
                refuseEntriesOfAnEarlierRun(store, scope);
            }
            return store;
        } catch (RuntimeException e) {
            close(store);
            throw e;
        }
    }

    /**
     * Closes a subtask's store when its operator closes, which Flink also does while cleaning up
     * after a failure: an exception thrown there is fatal to the whole task manager in Flink 2.2
     * ("exception in exception handler"). So a failing close (a store whose directory is gone, a
     * Kafka store that cannot send its last tombstones) is logged, not thrown. Nothing a checkpoint
     * relies on is lost by it: getting the recovery marker made everything before it durable.
     */
    public static void close(ActionStateStore store) {
        try {
            store.close();
        } catch (RuntimeException e) {
            LOG.warn("closing the action state store {} failed; what the last checkpoint relies on was durable when it was"
                    + " taken", store, e);
        }
    }

    /**
     * Restores the store from the checkpoint's markers. A store that cannot hold what they saw (a
     * different or older store directory: an {@code ILLEGAL_STATE} refusal) would refuse every
     * restart alike, so the job fails for good at the first one ({@link SuppressRestartsException})
     * instead of spending its restart attempts, and task slots, on the same refusal. A failure to
     * reach the store (e.g. {@code STORE_IO}) may pass, and is left to Flink's restart strategy.
     */
    private static void rebuild(ActionStateStore store, List<byte[]> recoveryMarkers) {
        try {
            store.rebuildState(recoveryMarkers);
        } catch (JournalException e) {
            if (e.getCode() == JournalException.Code.ILLEGAL_STATE) {
                throw new SuppressRestartsException(e);
            }
            throw e;
        }
    }

    /** See {@link ActionStateStore#liveEntries()}: a store that cannot tell (-1) is not checked. */
    private static void refuseEntriesOfAnEarlierRun(ActionStateStore store, SubtaskScope scope) {
        long entries = store.liveEntries();
        if (entries > 0) {
            throw new SuppressRestartsException(new IllegalStateException("the action state store of subtask "
                    + scope.subtaskIndex() + " (" + store + ") holds " + entries + " entries of an earlier run, but this job"
                    + " starts without a checkpoint; restore the job from its checkpoint or savepoint, or remove the store"
                    + " directory"));
        }
    }
}
