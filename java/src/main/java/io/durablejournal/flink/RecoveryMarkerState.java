package io.durablejournal.flink;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;

/**
 * The operator list state that checkpoints a subtask's store recovery marker. For a store that
 * restores at any parallelism it is union state, so after a rescale every subtask gets the markers
 * of all subtasks of the checkpoint; otherwise each subtask's marker goes back to the subtask of
 * the same index, and a per-subtask store refuses a rescaled restore when it checks them.
 */
final class RecoveryMarkerState {
    static final String PER_SUBTASK = "durable-journal-recovery-markers";
    static final String ALL_SUBTASKS = "durable-journal-recovery-markers-all";

    private RecoveryMarkerState() {}

    static ListState<byte[]> register(OperatorStateStore states, ActionStateStoreFactory factory) throws Exception {
        if (factory != null && factory.restoresAtAnyParallelism()) {
            return states.getUnionListState(new ListStateDescriptor<>(ALL_SUBTASKS, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        }
        return states.getListState(new ListStateDescriptor<>(PER_SUBTASK, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    }
}
