package io.durablejournal.flinkagents;

import java.util.HashMap;
import java.util.Map;

/**
 * Per key text, the sequence number a subtask's store has pruned through: Flink Agents 0.3.1
 * prunes every key that ever completed an input at every checkpoint, and a prune the store made
 * already costs this one lookup instead of a native call.
 */
final class PrunedThrough {
    private final Map<String, Long> byKey = new HashMap<>();

    /** Whether the store pruned {@code keyText} through {@code seqNum} already. */
    boolean covers(String keyText, long seqNum) {
        Long pruned = byKey.get(keyText);
        return pruned != null && pruned >= seqNum;
    }

    /** The store pruned {@code keyText} through {@code seqNum}. */
    void pruned(String keyText, long seqNum) {
        byKey.put(keyText, seqNum);
    }

    /** An entry of {@code keyText} at {@code seqNum} was written: a prune through it is a new one. */
    void written(String keyText, long seqNum) {
        if (covers(keyText, seqNum)) {
            byKey.remove(keyText);
        }
    }
}
