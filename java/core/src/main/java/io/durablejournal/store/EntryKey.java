package io.durablejournal.store;

import io.durablejournal.internal.Utf8;
import io.durablejournal.internal.CalledFromNative;
import java.util.Objects;

/**
 * The address of one entry (business key, input sequence number, action, triggering event) as it
 * crosses into the native store: one object, which {@code entry_key} in rust/jni/store.rs reads
 * field by field with ids bound once per library load. Strings are UTF-8 here already; the
 * canonical encoding of the key is done once, in Rust.
 */
final class EntryKey {
    @CalledFromNative
    final BusinessKey business;
    @CalledFromNative
    final long seq;
    @CalledFromNative
    final byte[] action;
    /** {@code EventIdentity.OCCURRENCE} or {@code ATTRIBUTES} ({@code EVENT_*} in rust/jni/store.rs). */
    @CalledFromNative
    final int eventKind;
    /** The occurrence id in UTF-8, or the attribute digest. */
    @CalledFromNative
    final byte[] event;

    private EntryKey(BusinessKey business, long seq, byte[] action, int eventKind, byte[] event) {
        this.business = business;
        this.seq = seq;
        this.action = action;
        this.eventKind = eventKind;
        this.event = event;
    }

    /**
     * The key of entry {@code (business, seq, actionName, event)}; a null action or event is a
     * NullPointerException naming it.
     */
    static EntryKey of(BusinessKey business, long seq, String actionName, EventIdentity event) {
        byte[] action = Utf8.encode(actionName, "actionName");
        Objects.requireNonNull(event, "event");
        return new EntryKey(business, seq, action, event.kind(), event.payload());
    }
}
