package io.durablejournal.store.internal;

import io.durablejournal.CallResult;
import io.durablejournal.JournalSlot;
import io.durablejournal.internal.CalledFromNative;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A stored entry as {@link JsonEntryStore#getResuming} returns it to a reader that answers an
 * interrupted action's recorded calls itself: Flink Agents' JSON of the entry and, when the store
 * split them off, its call slots apart. A split entry's JSON has no call results; its {@link
 * #hits()} are the leading slots the native library said replay as recorded (the core's replay
 * rule, in rust/model.rs), ready for {@link
 * io.durablejournal.DurableExecutionContext#resuming(List, java.util.function.Supplier)}, and
 * {@link #callCount()} counts every slot. An entry the store did not split has its call results
 * in its JSON and no hits apart.
 */
public final class ResumingEntry {
    private final byte[] stateJson;
    private final boolean completed;
    private final int callCount;
    /** Null for an entry that was not split. */
    private final List<JournalSlot> hits;

    /** A split entry from {@code hits} as they crossed ({@link InFlightEntries}). */
    ResumingEntry(byte[] stateJson, boolean completed, int callCount, List<JournalSlot> hits) {
        this.stateJson = Objects.requireNonNull(stateJson, "stateJson");
        this.completed = completed;
        this.callCount = callCount;
        this.hits = hits;
    }

    /**
     * A split entry, built by the native store ({@code resuming_entry} in rust/jni/store/resuming.rs): the
     * hits cross as columns ({@link JournalSlot#recorded}), because an array or an object made in
     * native code costs several JVM transitions while slicing one array here is a plain copy.
     */
    @CalledFromNative
    private ResumingEntry(byte[] stateJsonWithoutCalls, boolean completed, int callCount, byte[] packed, int[] idLengths,
            int[] resultLengths, byte[][] separateResults, int[] statuses, byte[][] exceptions) {
        this(stateJsonWithoutCalls, completed, callCount,
                JournalSlot.recorded(packed, idLengths, resultLengths, separateResults, statuses, exceptions));
    }

    /** An entry whose JSON holds everything, call results included. */
    public static ResumingEntry whole(byte[] stateJson) {
        return new ResumingEntry(stateJson, false, -1, (List<JournalSlot>) null);
    }

    /** Flink Agents' {@code ActionStateSerde} JSON of the entry (without call results when {@link #isSplit()}). */
    public byte[] stateJson() {
        return stateJson;
    }

    /** Whether the call slots were left out of {@link #stateJson()}. */
    public boolean isSplit() {
        return hits != null;
    }

    /**
     * Whether the entry is completed (its JSON's {@code completed} field, as the native store
     * read it: the JSON need not be decoded to know); only for a split entry.
     */
    public boolean isCompleted() {
        splitOnly();
        return completed;
    }

    /** The entry's number of call slots; only for a split entry. */
    public int callCount() {
        splitOnly();
        return callCount;
    }

    /** The leading slots that replay as recorded, in call order, as they crossed; only for a split entry. */
    public List<JournalSlot> hits() {
        splitOnly();
        return hits;
    }

    /** {@link #hits()} as {@link CallResult}s; only for a split entry. */
    public List<CallResult> recordedHits() {
        List<CallResult> results = new ArrayList<>(hits().size());
        for (JournalSlot hit : hits) {
            results.add(hit.toCallResult());
        }
        return results;
    }

    private void splitOnly() {
        if (hits == null) {
            throw new IllegalStateException("the entry was not split: its call results are in its JSON");
        }
    }
}
