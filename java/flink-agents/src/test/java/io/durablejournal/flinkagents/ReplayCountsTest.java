package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.store.EventIdentity;
import org.junit.jupiter.api.Test;

/** What a restored subtask's one INFO line says: each entry counted once, with the recorded calls of the resumed ones. */
class ReplayCountsTest {
    @Test
    void theRestoreLineCountsEachEntryOnceAndTheReplayedCalls() {
        ReplayCounts counts = new ReplayCounts();
        assertFalse(counts.any(), "nothing found yet: no line at a checkpoint");
        EventIdentity input = EventIdentity.rootOccurrence("user_0", 3);
        counts.found("user_0", 3, "draft", input, true, 0);
        counts.found("user_0", 3, "draft", input, true, 0); // the operator looks it up again
        counts.found("user_0", 3, "resolve", input, false, 3);
        counts.found("user_0", 3, "resolve", input, false, 3);
        counts.found("user_1", 4, "draft", input, false, 0); // interrupted before any call: nothing to resume
        assertTrue(counts.any());
        assertEquals("the action state store of subtask 1 was restored from a checkpoint (attempt 2); since then:"
                + " completed actions re-emitted 1, interrupted actions resumed 1 (recorded calls to replay 3)",
                counts.restoreSummary("the action state store of subtask 1", 2));
    }
}
