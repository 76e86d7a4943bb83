package io.durablejournal.flinkagents;

import io.durablejournal.store.EventIdentity;
import java.util.Objects;

/**
 * Where one action execution's journal lives in the store: the Flink key's text, the input's
 * per-key sequence number, the action's name and the identity of the triggering event. The store
 * is handed {@link #storeKey}: the text, or the text in the Flink key's key group ({@code
 * GroupedKey}); addresses are equal by the text.
 */
final class JournalAddress {
    final String keyText;
    /** What the store's calls are given as the key: the text, or the text with its Flink key group. */
    final Object storeKey;
    final long seqNum;
    final String actionName;
    final EventIdentity event;
    /** Computed once: every get and put asks the store's maps of open journals and stand-ins. */
    private final int hash;

    JournalAddress(String keyText, Object storeKey, long seqNum, String actionName, EventIdentity event) {
        this.keyText = Objects.requireNonNull(keyText, "keyText");
        this.storeKey = Objects.requireNonNull(storeKey, "storeKey");
        this.seqNum = seqNum;
        this.actionName = Objects.requireNonNull(actionName, "actionName");
        this.event = Objects.requireNonNull(event, "event");
        this.hash = Objects.hash(keyText, seqNum, actionName, event);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof JournalAddress)) {
            return false;
        }
        JournalAddress other = (JournalAddress) o;
        return seqNum == other.seqNum && keyText.equals(other.keyText) && actionName.equals(other.actionName)
                && event.equals(other.event);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "key '" + keyText + "', sequence number " + seqNum + ", action '" + actionName + "', event " + event;
    }
}
