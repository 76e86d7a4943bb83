package io.durablejournal.flinkagents;

import io.durablejournal.store.EventIdentity;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a subtask's store found for Flink Agents' operator since it opened: entries of completed
 * actions (the operator re-emits their stored output events without running them) and of
 * interrupted ones with journaled calls (the action runs again and those calls replay): entries
 * this store did not write itself. Each counts once, however often the operator looks it up; an
 * entry is forgotten when it is pruned. The counters are Flink accumulators ({@link DurableAgents#ACC_ACTIONS_REEMITTED},
 * {@link DurableAgents#ACC_ACTIONS_RESUMED}); with the recorded calls of the resumed actions, they
 * make the one log line of a restore ({@link #restoreSummary}).
 */
final class ReplayCounts {
    /** The store's logger: the restore's line is the store's. */
    private static final Logger LOG = LoggerFactory.getLogger(JournalActionStateStore.class);
    final LongCounter actionsReemitted = new LongCounter();
    final LongCounter actionsResumed = new LongCounter();
    /** The recorded calls of the resumed actions: what their journals answer instead of running them. */
    private long callsToReplay;
    private final Map<String, Set<List<Object>>> seenByKey = new HashMap<>();
    /** Whether the store was restored from a checkpoint's markers and the restore's INFO line is still due. */
    private boolean restoreToReport;

    /** The operator found the entry, {@code completed} or not, holding {@code calls} call slots. */
    void found(String keyText, long seqNum, String actionName, EventIdentity event, boolean completed, int calls) {
        if (!seen(keyText, seqNum, actionName, event)) {
            if (completed) {
                actionsReemitted.add(1L);
            } else if (calls > 0) {
                actionsResumed.add(1L);
                callsToReplay += calls;
            }
        }
    }

    /** Whether anything was found or replayed yet. */
    boolean any() {
        return actionsReemitted.getLocalValue() > 0 || actionsResumed.getLocalValue() > 0;
    }

    /** The store was opened, {@code fromMarkers} of a checkpoint or not: then its INFO line is due ({@link #reportRestore}). */
    void restored(boolean fromMarkers) {
        restoreToReport = fromMarkers;
    }

    /**
     * Logs the restore's one INFO line ({@link #restoreSummary}) once: at the first checkpoint
     * completed after the restore by which the store gave something back ({@code atACheckpoint}:
     * the inputs before that checkpoint's barrier have been looked up), or when the store closes
     * first. Nothing for a subtask that started without a checkpoint, nothing per call.
     */
    void reportRestore(boolean atACheckpoint, Supplier<String> store, int attempt) {
        if (restoreToReport && (!atACheckpoint || any())) {
            restoreToReport = false;
            LOG.info(restoreSummary(store.get(), attempt));
        }
    }

    /** The INFO line of a subtask's restore: what its store gave back since, named by {@code store}. */
    String restoreSummary(String store, int attempt) {
        return store + " was restored from a checkpoint (attempt " + attempt + "); since then: completed actions re-emitted "
                + actionsReemitted.getLocalValue() + ", interrupted actions resumed " + actionsResumed.getLocalValue()
                + " (recorded calls to replay " + callsToReplay + ")";
    }

    /** This store wrote the entry: later lookups of it are the operator's own bookkeeping, not replays. */
    void written(String keyText, long seqNum, String actionName, EventIdentity event) {
        seen(keyText, seqNum, actionName, event);
    }

    /** Whether the entry was seen before (and from now on, it is). */
    private boolean seen(String keyText, long seqNum, String actionName, EventIdentity event) {
        return !seenByKey.computeIfAbsent(keyText, k -> new HashSet<>()).add(Arrays.asList(seqNum, actionName, event));
    }

    /** The key's entries up to {@code seqNumUpTo} are gone from the store. */
    void pruned(String keyText, long seqNumUpTo) {
        Set<List<Object>> seen = seenByKey.get(keyText);
        if (seen != null) {
            seen.removeIf(entry -> (Long) entry.get(0) <= seqNumUpTo);
            if (seen.isEmpty()) {
                seenByKey.remove(keyText);
            }
        }
    }
}
