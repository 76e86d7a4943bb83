package io.durablejournal.flinkagents;

import io.durablejournal.ActionStateSerde;
import org.apache.flink.agents.runtime.actionstate.ActionState;

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
        return org.apache.flink.agents.runtime.actionstate.ActionStateSerde.deserialize(ActionStateSerde.serialize(state));
    }
}
