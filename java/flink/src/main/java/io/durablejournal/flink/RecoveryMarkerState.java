package io.durablejournal.flink;

import io.durablejournal.flink.internal.SubtaskStores;
import io.durablejournal.store.ActionStateStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The operator state that checkpoints a subtask's store recovery marker, and the parallelism it
 * was taken at. For a store that restores at any parallelism the markers are union state, so after
 * a rescale every subtask gets the markers of all subtasks; otherwise each subtask's marker goes
 * back to the subtask of the same index, and a restore at another parallelism is refused here,
 * before any store is opened: a per-subtask store (the file store) would miss the journals of the
 * keys that moved to another subtask.
 */
final class RecoveryMarkerState {
    static final String PER_SUBTASK = "durable-journal-recovery-markers";
    static final String ALL_SUBTASKS = "durable-journal-recovery-markers-all";
    static final String PARALLELISM = "durable-journal-checkpointed-parallelism";

    private final ListState<byte[]> markers;
    /** Union state: every subtask's parallelism at the snapshot. */
    private final ListState<Integer> parallelism;

    private RecoveryMarkerState(ListState<byte[]> markers, ListState<Integer> parallelism) {
        this.markers = markers;
        this.parallelism = parallelism;
    }

    static RecoveryMarkerState register(OperatorStateStore states, ActionStateStoreFactory factory) throws Exception {
        boolean anyParallelism = factory != null && factory.restoresAtAnyParallelism();
        ListState<byte[]> markers = anyParallelism
                ? states.getUnionListState(new ListStateDescriptor<>(ALL_SUBTASKS, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO))
                : states.getListState(new ListStateDescriptor<>(PER_SUBTASK, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        ListState<Integer> parallelism = states.getUnionListState(new ListStateDescriptor<>(PARALLELISM, Types.INT));
        return new RecoveryMarkerState(markers, parallelism);
    }

    /**
     * The restored markers, after refusing a per-subtask store's restore at another parallelism
     * ({@link SubtaskStores#checkRestoredParallelism}).
     */
    List<byte[]> restored(ActionStateStoreFactory factory, int currentParallelism) throws Exception {
        SubtaskStores.checkRestoredParallelism(factory, parallelism.get(), currentParallelism);
        List<byte[]> out = new ArrayList<>();
        for (byte[] marker : markers.get()) {
            out.add(marker);
        }
        return out;
    }

    void snapshot(ActionStateStore store, int currentParallelism) throws Exception {
        if (store == null) {
            markers.clear();
            parallelism.clear();
            return;
        }
        markers.update(Collections.singletonList(store.getRecoveryMarker()));
        parallelism.update(Collections.singletonList(currentParallelism));
    }
}
