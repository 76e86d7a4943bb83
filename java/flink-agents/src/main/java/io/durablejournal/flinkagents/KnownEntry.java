package io.durablejournal.flinkagents;

import java.util.Objects;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.runtime.actionstate.ActionState;

/**
 * What {@link JournalActionStateStore} knows of one entry without asking the native store, valid
 * until its next call that is not a {@code get} of that entry. Flink Agents 0.3.1's operator asks
 * twice in a row for an action's entry on a miss ({@code processActionTaskForKey}, then {@code
 * maybeInitActionState}), and right after putting an action's fresh state it gets that state
 * back: both answers are known, and each native lookup would also pay a JNI crossing and Flink
 * Agents' serde of the whole state.
 *
 * <ul>
 *   <li><b>missing</b>: the last {@code get} missed the entry. A repeated miss changes nothing in
 *       the store (the first one already dropped the key's later entries).</li>
 *   <li><b>fresh</b>: the last {@code put} stored an action's initial state (its task event, no
 *       memory updates, outputs or calls, not completed), which is all a reader would get back.</li>
 * </ul>
 */
final class KnownEntry {
    private JournalAddress address;
    /** The fresh entry's task event; null when the entry is known to be missing. */
    private Event freshTaskEvent;

    /** Whether {@code state} is an action's initial state, as the operator puts it before the action runs. */
    static boolean isInitial(ActionState state) {
        return state.getTaskEvent() != null && !state.isCompleted() && state.getCallResults().isEmpty()
                && state.getOutputEvents().isEmpty() && state.getSensoryMemoryUpdates().isEmpty()
                && state.getShortTermMemoryUpdates().isEmpty();
    }

    /** The last get missed the entry at {@code at}. */
    void missing(JournalAddress at) {
        address = Objects.requireNonNull(at, "at");
        freshTaskEvent = null;
    }

    /** The last put stored the initial state of the action at {@code at}, over {@code taskEvent}. */
    void initial(JournalAddress at, Event taskEvent) {
        address = Objects.requireNonNull(at, "at");
        freshTaskEvent = Objects.requireNonNull(taskEvent, "taskEvent");
    }

    /** The store is about to change (or to answer something else): nothing is known any more. */
    void forget() {
        address = null;
        freshTaskEvent = null;
    }

    /** Whether the entry at {@code at} is known. */
    boolean knows(JournalAddress at) {
        return address != null && address.equals(at);
    }

    /** The known entry as a reader gets it: null when missing, else a new initial state over its task event. */
    ActionState state() {
        return freshTaskEvent == null ? null : new ActionState(freshTaskEvent);
    }
}
