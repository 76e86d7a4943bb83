package io.durablejournal.store;

import io.durablejournal.CallResult;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A stored entry as {@link ActionStateStore#getResuming} returns it to a reader that answers an
 * interrupted action's recorded calls itself: Flink Agents' JSON of the entry and, when the store
 * split them off, its call slots apart. A split entry's JSON has no call results; its {@link
 * #recordedHits()} are the leading slots that replay as recorded (terminal, a plain id without an
 * args digest, a failure with its payload), and {@link #callCount()} counts every slot. An entry
 * the store did not split has its call results in its JSON and no hits apart.
 */
public final class ResumingEntry {
    private final byte[] stateJson;
    private final int callCount;
    private final List<CallResult> recordedHits;

    private ResumingEntry(byte[] stateJson, int callCount, List<CallResult> recordedHits) {
        this.stateJson = Objects.requireNonNull(stateJson, "stateJson");
        this.callCount = callCount;
        this.recordedHits = recordedHits;
    }

    /** An entry whose JSON holds everything, call results included. */
    public static ResumingEntry whole(byte[] stateJson) {
        return new ResumingEntry(stateJson, -1, null);
    }

    /** An entry whose JSON leaves out its {@code callCount} slots; {@code recordedHits} are the leading replayable ones. */
    public static ResumingEntry split(byte[] stateJsonWithoutCalls, int callCount, List<CallResult> recordedHits) {
        if (callCount < recordedHits.size()) {
            throw new IllegalArgumentException(recordedHits.size() + " hits of " + callCount + " calls");
        }
        return new ResumingEntry(stateJsonWithoutCalls, callCount, Collections.unmodifiableList(recordedHits));
    }

    /** Flink Agents' {@code ActionStateSerde} JSON of the entry (without call results when {@link #isSplit()}). */
    public byte[] stateJson() {
        return stateJson;
    }

    /** Whether the call slots were left out of {@link #stateJson()}. */
    public boolean isSplit() {
        return recordedHits != null;
    }

    /** The entry's number of call slots; only for a split entry. */
    public int callCount() {
        if (!isSplit()) {
            throw new IllegalStateException("the entry was not split: its call results are in its JSON");
        }
        return callCount;
    }

    /** The leading slots that replay as recorded, in call order; only for a split entry. */
    public List<CallResult> recordedHits() {
        if (!isSplit()) {
            throw new IllegalStateException("the entry was not split: its call results are in its JSON");
        }
        return recordedHits;
    }
}
