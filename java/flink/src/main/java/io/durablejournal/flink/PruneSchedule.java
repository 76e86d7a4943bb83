package io.durablejournal.flink;

import io.durablejournal.store.ActionStateStore;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * Which store entries to prune when which checkpoint completes, for {@link DurableActionFunction}
 * and {@link DurableAsyncActionFunction}. An entry may go once no checkpoint can replay its
 * record: the operator {@linkplain #add adds} it when that becomes true (the action completed; for
 * the async operator, its record left the queue), each {@linkplain #snapshot snapshot} takes what
 * was added since the last one, and a {@linkplain #checkpointCompleted completed checkpoint}
 * prunes what it and every earlier checkpoint took (a notification may be skipped, never
 * reordered). Confined to the task thread.
 */
final class PruneSchedule<K> {
    /** Prune each entry alone ({@link PrunePlan#applyTo}); else up to each key's largest sequence number. */
    private final boolean entryByEntry;
    /** Added since the last snapshot. */
    private PrunePlan<K> sinceSnapshot = new PrunePlan<>();
    /** Per checkpoint id, what was added before it and not pruned yet. */
    private final NavigableMap<Long, PrunePlan<K>> atCheckpoint = new TreeMap<>();

    /**
     * @param entryByEntry true when older records of a key may still run in another subtask (the
     *     async operator restored at another parallelism), so each entry is pruned alone
     */
    PruneSchedule(boolean entryByEntry) {
        this.entryByEntry = entryByEntry;
    }

    /** The entry of record {@code seq} of {@code key} can no longer be replayed by a later checkpoint. */
    void add(K key, long seq) {
        sinceSnapshot.add(key, seq);
    }

    /** Checkpoint {@code checkpointId} is taken: what was added so far is pruned when it completes. */
    void snapshot(long checkpointId) {
        atCheckpoint.put(checkpointId, sinceSnapshot);
        sinceSnapshot = new PrunePlan<>();
    }

    /**
     * Every entry taken by a checkpoint that has not completed yet, as this schedule would prune
     * them: for operator state, so that a restore from the checkpoint prunes them ({@link
     * #pruneNow}) in case the notification was lost to a failure.
     */
    List<Tuple2<K, Long>> pending() {
        PrunePlan<K> merged = new PrunePlan<>();
        atCheckpoint.values().forEach(merged::addAll);
        return merged.entries(entryByEntry);
    }

    /** Prunes what {@code checkpointId} and the checkpoints before it took. */
    void checkpointCompleted(long checkpointId, ActionStateStore store) {
        PrunePlan<K> covered = new PrunePlan<>();
        Iterator<PrunePlan<K>> plans = atCheckpoint.headMap(checkpointId, true).values().iterator();
        while (plans.hasNext()) {
            covered.addAll(plans.next());
            plans.remove();
        }
        covered.applyTo(store, entryByEntry);
    }

    /** Prunes {@code entries} (from {@link #pending()} of a restored checkpoint) now. */
    void pruneNow(Iterable<Tuple2<K, Long>> entries, ActionStateStore store) {
        PrunePlan<K> plan = new PrunePlan<>();
        for (Tuple2<K, Long> entry : entries) {
            plan.add(entry.f0, entry.f1);
        }
        plan.applyTo(store, entryByEntry);
    }
}
