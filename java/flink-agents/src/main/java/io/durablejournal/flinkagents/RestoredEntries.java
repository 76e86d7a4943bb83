package io.durablejournal.flinkagents;

import io.durablejournal.store.internal.InFlightEntries;
import io.durablejournal.store.internal.JsonEntries;
import org.apache.flink.agents.api.Event;

/**
 * The native store's answers for the actions that were in flight when a subtask's store was
 * restored, read in one crossing right after the restore ({@link InFlightEntries}): after a
 * failover every one of them runs again, and its first {@code get} is served from here instead of
 * crossing to the native store on its own (one crossing for all of them instead of two per
 * action: at 100-byte calls, most of the cost of an action's replay).
 *
 * <p>An answer is what the native store would answer at that moment only while nothing changes
 * the entries of its key, and every change of the store passes through {@link
 * JournalActionStateStore}. So it drops a key's answers at every other call for that key (a put,
 * a journal opened, a {@code get} that asks the store), and all of them at a prune (which may
 * expire entries of other keys), at the first completed checkpoint and at close; each answer is
 * served once. Nothing here decides what replays: the hits are the ones the native store
 * computed.
 */
final class RestoredEntries {
    /**
     * The most bytes of JSON and hits read at a restore: the answers stay in the heap until their
     * actions ask for them or the first checkpoint completes, and an action whose answer did not
     * fit asks the store itself.
     */
    static final long MAX_BYTES = 16L << 20;

    private InFlightEntries entries = InFlightEntries.none();

    /** Reads the answers of {@code store}'s interrupted entries (none from a store of the user's). */
    void restored(io.durablejournal.store.ActionStateStore store) {
        entries = JsonEntries.inFlightEntries(store, MAX_BYTES);
    }

    /**
     * The answer for the action {@code actionName} of {@code keyText}'s input {@code seqNum} on
     * {@code event}, taken (it is served once), or null: then the caller asks the store, after
     * dropping the key's other answers ({@link #changing}). The input event's identity is not derived: the native
     * store said which entry's event is the root occurrence of its input.
     */
    InFlightEntries.Entry take(String keyText, long seqNum, String actionName, Event event, EventIdentities events) {
        if (entries.size() == 0) {
            return null;
        }
        InFlightEntries.Entry found = EventIdentities.isInput(event) ? entries.takeRootOccurrence(keyText, seqNum, actionName)
                : entries.take(keyText, seqNum, actionName, events.identityOf(keyText, seqNum, event));
        if (found != null && EventIdentities.isInput(event)) {
            events.rootOccurrenceIs(keyText, seqNum, found.event);
        }
        released();
        return found;
    }

    /** A call that may change the entries of {@code keyText}: their answers are dropped. */
    void changing(String keyText) {
        entries.dropKey(keyText);
        released();
    }

    /** A call that may change any entry: every answer is dropped. */
    void changingAny() {
        entries = InFlightEntries.none();
    }

    /** Lets the crossing's arrays go once every answer is taken or dropped. */
    private void released() {
        if (entries.size() == 0) {
            entries = InFlightEntries.none();
        }
    }
}
