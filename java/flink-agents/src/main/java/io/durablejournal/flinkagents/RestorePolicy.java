package io.durablejournal.flinkagents;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.internal.SubtaskStores;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of a checkpoint's recovery markers a subtask's store restores from ({@link
 * #markersToRestore}), and the refusals that fail the job for good: markers of another store,
 * of another parallelism for a per-subtask store, none of this subtask.
 */
final class RestorePolicy {
    private static final Logger LOG = LoggerFactory.getLogger(JournalActionStateStore.class);

    private RestorePolicy() {
    }

    /**
     * The native markers the store of {@code subtask} restores from: every subtask's for a store
     * that restores at any parallelism, else this subtask's own.
     *
     * @param describe the store, for the refusals' messages
     * @throws SuppressRestartsException when the store cannot restore from these markers
     */
    static List<byte[]> markersToRestore(List<Object> recoveryMarkers, ActionStateStoreFactory stores, int subtask,
            int parallelism, String describe) {
        List<SubtaskMarker> decoded = new ArrayList<>();
        List<Integer> parallelisms = new ArrayList<>();
        for (Object marker : recoveryMarkers) {
            if (!SubtaskMarker.isOurs(marker)) {
                throw refuse(describe, "the checkpoint holds a recovery marker of another action state store (" + marker
                        + "); its journals are not in " + describe);
            }
            SubtaskMarker subtaskMarker = SubtaskMarker.decode((String) marker);
            decoded.add(subtaskMarker);
            parallelisms.add(subtaskMarker.parallelism);
        }
        SubtaskStores.checkRestoredParallelism(stores, parallelisms, parallelism);
        boolean everySubtasks = stores.restoresAtAnyParallelism();
        List<byte[]> markers = new ArrayList<>();
        for (SubtaskMarker marker : decoded) {
            if (everySubtasks || marker.subtask == subtask) {
                markers.add(marker.storeMarker);
            }
        }
        if (!recoveryMarkers.isEmpty() && markers.isEmpty()) {
            throw refuse(describe, "the checkpoint has no recovery marker of subtask " + subtask + " among its "
                    + recoveryMarkers.size());
        }
        return markers;
    }

    /** Fails the job for good, saying why in the task's log too (WARN: a refused restore, not a crash of ours). */
    private static SuppressRestartsException refuse(String describe, String reason) {
        LOG.warn("{} refuses to restore: {}", describe, reason);
        return new SuppressRestartsException(new IllegalStateException(reason));
    }
}
