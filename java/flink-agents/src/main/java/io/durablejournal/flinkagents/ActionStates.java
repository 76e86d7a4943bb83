package io.durablejournal.flinkagents;

import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateSerde;

/**
 * Flink Agents' ActionState as the JSON both runtimes read and write (Flink Agents' {@code
 * ActionStateSerde}): the native store takes that JSON as it is ({@code putJson}), parses it
 * itself and writes what changed since the stored entry; it hands it back the same way
 * ({@code getJson}), every field kept (numbers, strings, {@code argsDigest}, unknown fields).
 */
final class ActionStates {
    private ActionStates() {}

    /** The state as the native store takes it. */
    static byte[] toJson(ActionState state) {
        return ActionStateSerde.serialize(state);
    }

    /** The state the native store returned, as Flink Agents' operator takes it. */
    static ActionState fromJson(byte[] json) {
        return ActionStateSerde.deserialize(json);
    }
}
