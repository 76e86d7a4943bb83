package io.durablejournal.store.internal;

import io.durablejournal.JournalSlot;
import io.durablejournal.internal.CalledFromNative;
import io.durablejournal.store.EventIdentity;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@link JsonEntryStore#getResuming} answers of a store's interrupted entries, read in one
 * crossing ({@link JsonEntryStore#inFlightEntries}) for a reader that is about to ask for each
 * of them once: Flink Agents' adapter right after a restore, when every action in flight runs
 * again. Each answer is what {@code getResuming} would return for its entry at the moment of
 * the read, hits included (the core's replay rule computed them); it stays that only while
 * nothing changes the entries of its key, so the reader takes an answer once ({@link #take})
 * and drops a key's answers at any other call for that key ({@link #dropKey}). Only entries filed
 * under a text key cross, and only those whose hits are small successes; the rest are asked for
 * one by one.
 */
public final class InFlightEntries {
    /** Ints per entry in the entry columns (rust/jni/store/in_flight.rs {@code ENTRY_COLUMNS}). */
    static final int ENTRY_COLUMNS = 8;
    private static final int KIND_OCCURRENCE = 1;
    private static final InFlightEntries NONE = new InFlightEntries();

    private final byte[] packed;
    private final int[] slotColumns;
    /** The entries not taken yet, by key text: the first of each key's chain ({@link Entry#next}). */
    private final Map<String, Entry> byKey;
    private int remaining;

    private InFlightEntries() {
        this.packed = new byte[0];
        this.slotColumns = new int[0];
        this.byKey = new HashMap<>();
    }

    /**
     * Built by the native store: per entry its key text, action, event, JSON without calls and
     * hits back to back in {@code packed}, {@value #ENTRY_COLUMNS} ints in {@code entryColumns}
     * (the lengths of the first three, the event's kind, whether the event is the root
     * occurrence of the entry's own key and sequence number, the slot count, the JSON's length
     * and the hit count), its sequence number in {@code seqs}, and three ints per hit in {@code
     * slotColumns} (see {@link JournalSlot#recorded(byte[], int, int, int[], int, int)}).
     */
    @CalledFromNative
    private InFlightEntries(byte[] packed, int[] entryColumns, long[] seqs, int[] slotColumns) {
        if (entryColumns.length != seqs.length * ENTRY_COLUMNS) {
            throw new IllegalArgumentException(entryColumns.length + " entry columns for " + seqs.length + " entries");
        }
        this.packed = packed;
        this.slotColumns = slotColumns;
        this.byKey = new HashMap<>(Math.max(16, seqs.length * 4 / 3 + 1));
        int at = 0;
        int slot = 0;
        // An agent has a handful of actions: a name equal to the entry before's is not decoded again.
        String actionName = null;
        int actionFrom = 0;
        int actionBytes = 0;
        for (int i = 0; i < seqs.length; i++) {
            int column = i * ENTRY_COLUMNS;
            String keyText = text(at, entryColumns[column]);
            at += entryColumns[column];
            int actionLength = entryColumns[column + 1];
            if (actionName == null || !Arrays.equals(packed, actionFrom, actionFrom + actionBytes, packed, at, at + actionLength)) {
                actionName = text(at, actionLength);
                actionFrom = at;
                actionBytes = actionLength;
            }
            at += actionLength;
            int eventLength = entryColumns[column + 3];
            EventIdentity event = entryColumns[column + 2] == KIND_OCCURRENCE ? EventIdentity.occurrence(text(at, eventLength))
                    : EventIdentity.attributes(Arrays.copyOfRange(packed, at, at + eventLength));
            at += eventLength;
            int jsonFrom = at;
            at += entryColumns[column + 6];
            int hits = entryColumns[column + 7];
            int hitsFrom = at;
            for (int h = 0; h < hits; h++) {
                at += Math.max(0, slotColumns[3 * (slot + h)]) + Math.max(0, slotColumns[3 * (slot + h) + 1]);
            }
            Entry entry = new Entry(this, keyText, seqs[i], actionName, event, entryColumns[column + 4] == 1,
                    entryColumns[column + 5], jsonFrom, hitsFrom, at, slot, hits);
            entry.next = byKey.put(keyText, entry);
            slot += hits;
        }
        if (at != packed.length || 3 * slot != slotColumns.length) {
            throw new IllegalArgumentException("the entry columns cover " + at + " of " + packed.length + " packed bytes and "
                    + slot + " of " + slotColumns.length / 3 + " slots");
        }
        this.remaining = seqs.length;
    }

    /** No answers: what a store that cannot list its entries gives. */
    public static InFlightEntries none() {
        return NONE;
    }

    private String text(int from, int length) {
        return new String(packed, from, length, StandardCharsets.UTF_8);
    }

    /** Answers not taken or dropped yet. */
    public int size() {
        return remaining;
    }

    /**
     * Takes the answer for the entry of {@code keyText}'s input {@code seqNum}, action {@code
     * actionName} and event {@code event}; null when there is none here (the reader asks the
     * store, and should drop the key's other answers first).
     */
    public Entry take(String keyText, long seqNum, String actionName, EventIdentity event) {
        return take(keyText, seqNum, actionName, event, false);
    }

    /**
     * {@link #take} for the input event itself, without its identity: the entry whose event is
     * the root occurrence of {@code keyText}'s input {@code seqNum} (the native store compared
     * it), so the reader need not derive it.
     */
    public Entry takeRootOccurrence(String keyText, long seqNum, String actionName) {
        return take(keyText, seqNum, actionName, null, true);
    }

    private Entry take(String keyText, long seqNum, String actionName, EventIdentity event, boolean root) {
        if (remaining == 0) {
            return null;
        }
        Entry before = null;
        for (Entry entry = byKey.get(keyText); entry != null; before = entry, entry = entry.next) {
            if (entry.seqNum == seqNum && entry.actionName.equals(actionName)
                    && (root ? entry.rootOccurrence : entry.event.equals(event))) {
                if (before != null) {
                    before.next = entry.next;
                } else if (entry.next != null) {
                    byKey.put(keyText, entry.next);
                } else {
                    byKey.remove(keyText);
                }
                entry.next = null;
                remaining--;
                return entry;
            }
        }
        return null;
    }

    /** Drops the answers for {@code keyText}'s entries: something may have changed them. */
    public void dropKey(String keyText) {
        if (remaining == 0) {
            return;
        }
        for (Entry dropped = byKey.remove(keyText); dropped != null; dropped = dropped.next) {
            remaining--;
        }
    }

    /** Drops every answer. */
    public void clear() {
        byKey.clear();
        remaining = 0;
    }

    /** One entry's answer. */
    public static final class Entry {
        private final InFlightEntries of;
        public final String keyText;
        public final long seqNum;
        public final String actionName;
        /** The entry's event identity, as the store files it. */
        public final EventIdentity event;
        private final boolean rootOccurrence;
        private final int callCount;
        private final int jsonFrom;
        private final int hitsFrom;
        private final int to;
        private final int firstSlot;
        private final int hits;
        /** The next entry of the same key text, not taken yet. */
        private Entry next;

        private Entry(InFlightEntries of, String keyText, long seqNum, String actionName, EventIdentity event,
                boolean rootOccurrence, int callCount, int jsonFrom, int hitsFrom, int to, int firstSlot, int hits) {
            this.of = of;
            this.keyText = keyText;
            this.seqNum = seqNum;
            this.actionName = actionName;
            this.event = event;
            this.rootOccurrence = rootOccurrence;
            this.callCount = callCount;
            this.jsonFrom = jsonFrom;
            this.hitsFrom = hitsFrom;
            this.to = to;
            this.firstSlot = firstSlot;
            this.hits = hits;
        }

        /** The entry as {@link JsonEntryStore#getResuming} returns it: split, not completed. */
        public ResumingEntry resuming() {
            byte[] json = Arrays.copyOfRange(of.packed, jsonFrom, hitsFrom);
            return new ResumingEntry(json, false, callCount,
                    JournalSlot.recorded(of.packed, hitsFrom, to, of.slotColumns, firstSlot, hits));
        }
    }
}
