package io.durablejournal.flinkagents.replay;

import io.durablejournal.ActionStateSerde;
import io.durablejournal.store.RetainedAction;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.runtime.actionstate.ActionState;

/**
 * A retained action of Flink Agents' operator, read with Flink Agents' own classes (its {@code
 * ActionStateSerde}, as its operator reads a stored state): the triggering event, the memory
 * updates with their values' own types, the output events.
 */
final class RecordedAction {
    final RetainedAction retained;
    final ActionState state;

    private RecordedAction(RetainedAction retained, ActionState state) {
        this.retained = retained;
        this.state = state;
    }

    /** The retained copy read as Flink Agents' state; a copy Flink Agents' serde cannot read has a null state. */
    static RecordedAction of(RetainedAction retained) {
        ActionState state;
        try {
            state = org.apache.flink.agents.runtime.actionstate.ActionStateSerde.deserialize(
                    ActionStateSerde.serialize(retained.getState()));
        } catch (RuntimeException e) {
            state = null;
        }
        return new RecordedAction(retained, state);
    }

    /** The event that triggered it, or null when none was recorded (or the state did not read). */
    Event event() {
        return state == null ? null : state.getTaskEvent();
    }

    /** Whether the input record itself (Flink Agents' input event) triggered it. */
    boolean onInputEvent() {
        Event event = event();
        return event != null && InputEvent.EVENT_TYPE.equals(event.getType());
    }

    String key() {
        return retained.getKey();
    }

    long seq() {
        return retained.getSeq();
    }

    String name() {
        return retained.getActionName();
    }

    /** The event it ran on, as the store identifies it, with the key and sequence number: one per triggering event. */
    String eventAddress() {
        return retained.getKey() + "@" + retained.getSeq() + "/" + retained.getEvent();
    }
}
