package io.durablejournal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The recorded hits a {@link DurableExecutionContext} answers before its native journal opens:
 * the leading slots the native library said replay as recorded (the core's one replay rule, in
 * rust/model.rs), found when it read the state ({@link ActionStateSerde#deserialize}) or when a
 * store served the entry ({@link io.durablejournal.store.internal.ResumingEntry#hits()}). This only asks
 * whether the next hit's id is the call's id, and keeps the state the context was created over
 * until the journal opens over it. Used under the context's lock.
 */
final class RecordedReplay {
    /** The state the context was created over, or null (a store's split entry, or the journal opened). */
    private ActionState recorded;
    /** The hits, in call order. */
    private List<JournalSlot> hits;
    /** Hits answered so far: the journal's index starts past them when it opens. */
    private int answered;

    private RecordedReplay(ActionState recorded, List<JournalSlot> hits) {
        this.recorded = recorded;
        this.hits = hits;
    }

    /** Over a copy of {@code state} (slots are immutable, payloads included), with its hits. */
    static RecordedReplay over(ActionState state) {
        ActionState copy = Objects.requireNonNull(state, "state").copy();
        return new RecordedReplay(copy, hitsOf(copy));
    }

    /** Over the hits a store served apart from its entry. */
    static RecordedReplay ofHits(List<JournalSlot> hits) {
        return new RecordedReplay(null, Objects.requireNonNull(hits, "hits"));
    }

    /** Nothing recorded: a context over a journal that is open from the start. */
    static RecordedReplay none() {
        return new RecordedReplay(null, Collections.emptyList());
    }

    /** The leading slots of {@code state} that the native library said replay as recorded. */
    private static List<JournalSlot> hitsOf(ActionState state) {
        List<CallResult> slots = state.callResults();
        int count = Math.min(state.hitCount(), slots.size());
        List<JournalSlot> hits = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            hits.add(JournalSlot.of(slots.get(i)));
        }
        return hits;
    }

    /** The next hit when it is the call {@code id}'s (its UTF-8), else null: the journal decides. */
    JournalSlot next(byte[] id) {
        if (answered >= hits.size()) {
            return null;
        }
        JournalSlot hit = hits.get(answered);
        return Arrays.equals(id, hit.functionId) ? hit : null;
    }

    /** The hit {@link #next} returned was answered. */
    void answer() {
        answered++;
    }

    int answered() {
        return answered;
    }

    /** The state the context was created over, while the journal has not opened over it; else null. */
    ActionState state() {
        return recorded;
    }

    /** The journal opened (or the context closed): nothing more is answered from here. */
    void drop() {
        recorded = null;
        hits = Collections.emptyList();
    }
}
