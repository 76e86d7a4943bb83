package io.durablejournal.flinkagents;

import java.util.HashMap;
import java.util.Map;

/**
 * The native journals a subtask's {@link JournalActionStateStore} opened and has not released
 * yet, by entry: each is released when its action's completed state is put, when its entry is
 * pruned, or when the store closes.
 */
final class OpenJournals {
    private final Map<JournalAddress, NativeJournalContext> byAddress = new HashMap<>();

    /** The journal open for the entry at {@code address}, or null. */
    NativeJournalContext get(JournalAddress address) {
        return byAddress.get(address);
    }

    /** Registers {@code owner}'s journal for {@code address}, releasing another one it replaces. */
    void opened(JournalAddress address, NativeJournalContext owner) {
        NativeJournalContext previous = byAddress.put(address, owner);
        if (previous != null && previous != owner) {
            previous.release();
        }
    }

    /** Releases {@code journal}, the one of {@code address}: its action is done. */
    void completed(JournalAddress address, NativeJournalContext journal) {
        byAddress.remove(address);
        journal.release();
    }

    /** Releases the journals of the key's entries up to {@code seqNum} (they were pruned). */
    void pruned(String keyText, long seqNum) {
        byAddress.entrySet().removeIf(entry -> {
            boolean prunedEntry = entry.getKey().keyText.equals(keyText) && entry.getKey().seqNum <= seqNum;
            if (prunedEntry) {
                entry.getValue().release();
            }
            return prunedEntry;
        });
    }

    /** Releases every journal (the store closes). */
    void releaseAll() {
        byAddress.values().forEach(NativeJournalContext::release);
        byAddress.clear();
    }
}
