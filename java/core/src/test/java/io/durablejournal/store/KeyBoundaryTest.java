package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Keys cross into the native store as one object ({@link EntryKey}, or a {@link BusinessKey}),
 * read field by field in Rust: a null one is a NullPointerException naming it, and every field
 * reaches the store (an entry written under one key is found under exactly that key).
 */
class KeyBoundaryTest {
    private static final byte[] EMPTY = ActionStateSerde.serialize(new ActionState());

    @Test
    void aNullKeyObjectIsANullPointerExceptionAtTheNativeCall() {
        long store = StoreJni.openMemory();
        try {
            assertEquals("key must not be null", assertThrows(NullPointerException.class, () -> StoreJni.put(store, null, EMPTY)).getMessage());
            assertEquals("key must not be null", assertThrows(NullPointerException.class, () -> StoreJni.get(store, null)).getMessage());
            assertEquals("key must not be null", assertThrows(NullPointerException.class, () -> StoreJni.prune(store, null, 1)).getMessage());
            assertEquals("key must not be null", assertThrows(NullPointerException.class, () -> StoreJni.rootOccurrence(null, 1)).getMessage());
        } finally {
            StoreJni.close(store);
        }
    }

    @Test
    void everyFieldOfTheEntryKeyAddressesTheEntry() {
        long store = StoreJni.openMemory();
        try {
            EventIdentity event = EventIdentity.attributes(new byte[] {1, 2, 3});
            StoreJni.put(store, EntryKey.of(BusinessKey.of("user-😀"), 7, "act", event), EMPTY);
            assertArrayEquals(EMPTY, StoreJni.get(store, EntryKey.of(BusinessKey.of("user-😀"), 7, "act", event)));
            assertEquals(null, StoreJni.get(store, EntryKey.of(BusinessKey.of("user-😀".getBytes(StandardCharsets.UTF_8)), 7, "act", event)), "key kind");
            assertEquals(null, StoreJni.get(store, EntryKey.of(BusinessKey.of("user-😀"), 8, "act", event)), "sequence number");
            assertEquals(null, StoreJni.get(store, EntryKey.of(BusinessKey.of("user-😀"), 7, "act2", event)), "action");
            assertEquals(null, StoreJni.get(store, EntryKey.of(BusinessKey.of("user-😀"), 7, "act", EventIdentity.attributes(new byte[] {1, 2}))), "event digest");
            assertEquals(null, StoreJni.get(store, EntryKey.of(BusinessKey.of("user-😀"), 7, "act", EventIdentity.occurrence("x"))), "event kind");
        } finally {
            StoreJni.close(store);
        }
    }
}
