package io.durablejournal.flink;

import io.durablejournal.store.ActionStateStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * Store entries that may be pruned, as (key, sequence number) pairs of records no checkpoint can
 * replay any more. Applied either up to the largest sequence number of each key (a key's records
 * all ran in this subtask, in order) or entry by entry ({@link ActionStateStore#pruneStateAt}, for
 * stores restored at any parallelism, where another subtask may still be running an older record
 * of the same key). Confined to the task thread.
 */
final class PrunePlan<K> {
    private final Map<K, NavigableSet<Long>> seqs = new HashMap<>();

    void add(K key, long seq) {
        seqs.computeIfAbsent(key, k -> new TreeSet<>()).add(seq);
    }

    void addAll(PrunePlan<K> other) {
        other.seqs.forEach((key, s) -> seqs.computeIfAbsent(key, k -> new TreeSet<>()).addAll(s));
    }

    void applyTo(ActionStateStore store, boolean entryByEntry) {
        for (Tuple2<K, Long> prunable : entries(entryByEntry)) {
            if (entryByEntry) {
                store.pruneStateAt(prunable.f0, prunable.f1);
            } else {
                store.pruneState(prunable.f0, prunable.f1);
            }
        }
    }

    /** Every pair, or only the largest sequence number of each key. */
    List<Tuple2<K, Long>> entries(boolean entryByEntry) {
        List<Tuple2<K, Long>> out = new ArrayList<>();
        seqs.forEach((key, s) -> {
            if (entryByEntry) {
                s.forEach(seq -> out.add(Tuple2.of(key, seq)));
            } else {
                out.add(Tuple2.of(key, s.last()));
            }
        });
        return out;
    }
}
