package io.durablejournal.flinkagents;

import io.durablejournal.ActionStateSerde;
import java.util.List;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.CallResult;

/**
 * Flink Agents' ActionState and durable-journal's, converted through the JSON both write (the
 * ActionState JSON of Flink Agents' {@code ActionStateSerde}): events and memory updates pass as
 * the JSON Flink Agents wrote, call results as the journal's slots.
 */
final class ActionStates {
    private ActionStates() {}

    /** Flink Agents' state as the journal's, for the native store. */
    static io.durablejournal.ActionState toJournal(ActionState state) {
        byte[] json = org.apache.flink.agents.runtime.actionstate.ActionStateSerde.serialize(state);
        return ActionStateSerde.deserialize(json);
    }

    /** The journal's state as Flink Agents', for its operator. */
    static ActionState toFlinkAgents(io.durablejournal.ActionState state) {
        ActionState converted = org.apache.flink.agents.runtime.actionstate.ActionStateSerde.deserialize(
                ActionStateSerde.serialize(state));
        withArgsDigests(converted);
        return converted;
    }

    /**
     * Gives every call result without an {@code argsDigest} the empty one. Flink Agents 0.3.1
     * matches a call on {@code (functionId, argsDigest)} and records {@code ""} for every Java
     * callable; a core that does not keep the field (it matches on functionId alone) would
     * otherwise make every replayed Java call miss its slot and run again. A slot that has a
     * digest is left as it is.
     */
    private static void withArgsDigests(ActionState state) {
        List<CallResult> calls = state.getCallResults();
        for (int i = 0; i < calls.size(); i++) {
            CallResult call = calls.get(i);
            if (call.getArgsDigest() == null) {
                state.replaceCallResult(i, call.isPending()
                        ? CallResult.pending(call.getFunctionId(), "")
                        : new CallResult(call.getFunctionId(), "", call.getResultPayload(), call.getExceptionPayload()));
            }
        }
    }
}
