package io.durablejournal.store;

import static io.durablejournal.store.ActionStateStoreContract.slot;
import static io.durablejournal.store.ActionStateStoreContract.stateJson;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.durablejournal.JournalException;
import io.durablejournal.store.internal.InFlightEntries;
import io.durablejournal.store.internal.ResumingEntry;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@code getResuming} answers of many entries in one crossing ({@link
 * NativeKeyedStore#inFlightEntries}): each is exactly what {@code getResuming} answers for its
 * entry, only interrupted entries of text keys whose hits are small successes cross, the budget
 * holds, and reading them changes nothing.
 */
class InFlightEntriesTest extends StoreFixture {
    private static final EventIdentity EVENT = EventIdentity.occurrence("occ-1");
    private static final String A = slot("chat", "SUCCEEDED", "ImEi");
    private static final String B = slot("tool-call:b", "SUCCEEDED", null);
    private static final String PENDING = slot("tool-call:c", "PENDING", null);

    private static void assertSameAnswer(ResumingEntry expected, ResumingEntry actual) {
        assertArrayEquals(expected.stateJson(), actual.stateJson());
        assertEquals(expected.isCompleted(), actual.isCompleted());
        assertEquals(expected.callCount(), actual.callCount());
        assertEquals(expected.recordedHits(), actual.recordedHits());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void eachEntryIsAnsweredAsGetResumingAnswersIt(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        EventIdentity root = EventIdentity.rootOccurrence("user", 3);
        store.putJson("user", 3, "act", root, stateJson(false, "", A, B, PENDING));
        store.putJson("user", 3, "other", EVENT, stateJson(false, "", A));
        store.putJson("user-2", 1, "act", EVENT, stateJson(false, ""));

        InFlightEntries entries = store.inFlightEntries(1 << 20);
        assertEquals(3, entries.size());
        assertNull(entries.takeRootOccurrence("user", 3, "other"), "its event is not the input's root occurrence");
        InFlightEntries.Entry rooted = entries.takeRootOccurrence("user", 3, "act");
        assertNotNull(rooted);
        assertEquals(root, rooted.event, "the identity the entry is filed under");
        assertSameAnswer(store.getResuming("user", 3, "act", root), rooted.resuming());
        assertEquals(3, rooted.resuming().callCount());
        assertEquals(2, rooted.resuming().hits().size(), "the pending slot ends the hits");
        assertNull(entries.take("user", 3, "act", root), "an answer is taken once");

        assertNull(entries.take("user", 3, "other", EventIdentity.occurrence("occ-2")), "another event");
        assertNull(entries.take("user", 4, "other", EVENT), "another sequence number");
        assertSameAnswer(store.getResuming("user", 3, "other", EVENT), entries.take("user", 3, "other", EVENT).resuming());
        entries.dropKey("user-2");
        assertEquals(0, entries.size());
        assertNull(entries.take("user-2", 1, "act", EVENT), "dropped");

        assertEquals(3, store.inFlightEntries(1 << 20).size(), "reading changed nothing in the store");
        assertEquals(3, store.get("user", 3, "act", root).getCallResults().size());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void theEntriesOfOneKeyAreEachTakenOnceWhateverTheOrder(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        String[] actions = {"ü-act", "ü-bct", "act", "ü-act-2"};
        for (String action : actions) {
            store.putJson("k-ü", 1, action, EVENT, stateJson(false, "", A));
            store.putJson("k-ü", 2, action, EVENT, stateJson(false, "", A));
        }
        InFlightEntries entries = store.inFlightEntries(1 << 20);
        assertEquals(8, entries.size());
        int left = 8;
        for (long seq : new long[] {2, 1}) {
            for (String action : new String[] {"ü-bct", "ü-act-2", "ü-act", "act"}) {
                InFlightEntries.Entry taken = entries.take("k-ü", seq, action, EVENT);
                assertNotNull(taken, action + " at " + seq);
                assertEquals(action, taken.actionName);
                assertEquals("k-ü", taken.keyText);
                assertNull(entries.take("k-ü", seq, action, EVENT), "taken once");
                assertEquals(--left, entries.size());
            }
        }
        InFlightEntries again = store.inFlightEntries(1 << 20);
        again.dropKey("k-ü");
        assertEquals(0, again.size(), "every entry of the key dropped");
        assertNull(again.take("k-ü", 1, "act", EVENT));
    }

    @ParameterizedTest
    @MethodSource("stores")
    void completedFailedLargeAndNonTextEntriesAreLeftToGetResuming(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        store.putJson("done", 1, "act", EVENT, stateJson(true, "{\"@class\":\"org.example.OutputEvent\"}"));
        String failure = "{\"functionId\":\"tool-call:fails\",\"status\":\"FAILED\",\"resultPayload\":null,"
                + "\"exceptionPayload\":\"AP+A\"}";
        store.putJson("failed", 1, "act", EVENT, stateJson(false, "", failure));
        char[] large = new char[4000];
        Arrays.fill(large, 'A');
        store.putJson("large", 1, "act", EVENT, stateJson(false, "", slot("chat", "SUCCEEDED", new String(large))));
        store.putJson(7L, 1, "act", EVENT, stateJson(false, "", A));
        store.putJson("small", 1, "act", EVENT, stateJson(false, "", A));

        InFlightEntries entries = store.inFlightEntries(1 << 20);
        assertEquals(1, entries.size(), "only the small interrupted entry of a text key");
        assertNotNull(entries.take("small", 1, "act", EVENT));
        assertEquals(0, store.inFlightEntries(0).size(), "nothing fits no bytes");
        JournalException negative = assertThrows(JournalException.class, () -> store.inFlightEntries(-1));
        assertEquals(JournalException.Code.INVALID_ARGUMENT, negative.getCode());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void theBudgetBoundsTheBytesRead(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        for (int i = 0; i < 50; i++) {
            store.putJson("user-" + i, 1, "act", EVENT, stateJson(false, "", A, B));
        }
        int all = store.inFlightEntries(1 << 20).size();
        assertEquals(50, all);
        int some = store.inFlightEntries(2000).size();
        assertFalse(some == 0 || some == all, some + " of " + all + " entries in 2000 bytes");
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aClosedStoreRefusesTheRead(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        store.close();
        assertThrows(IllegalStateException.class, () -> store.inFlightEntries(1 << 20));
    }
}
