package io.durablejournal.store;

import io.durablejournal.internal.Utf8;
import java.util.Arrays;
import java.util.Objects;

/**
 * Which event triggered an action: its occurrence id (spec §3), distinct for events with equal
 * payloads, or, for events without one, a digest of its attributes that the caller computed
 * (equal attributes then share an entry).
 */
public final class EventIdentity {
    static final int OCCURRENCE = 1;
    static final int ATTRIBUTES = 2;

    private final int kind;
    private final String occurrenceId;
    private final byte[] digest;
    /**
     * The occurrence id in UTF-8, as it crosses with every entry key; made once (a store's get
     * and put each cross it, and the adapter asks several maps for the same identity).
     */
    private volatile byte[] occurrenceUtf8;
    /** The hash code, once computed (0: not yet). */
    private int hash;

    private EventIdentity(int kind, String occurrenceId, byte[] digest) {
        this.kind = kind;
        this.occurrenceId = occurrenceId;
        this.digest = digest;
    }

    public static EventIdentity occurrence(String occurrenceId) {
        return new EventIdentity(OCCURRENCE, Objects.requireNonNull(occurrenceId, "occurrenceId"), null);
    }

    public static EventIdentity attributes(byte[] digest) {
        return new EventIdentity(ATTRIBUTES, null, Objects.requireNonNull(digest, "digest").clone());
    }

    /**
     * The root occurrence (spec §3) of input record {@code inputSeqNum} of {@code businessKey}:
     * derived natively from the typed key and the sequence number, so it is the same in every
     * process and distinct for equal-payload records. Keys map as in {@link ActionStateStore}.
     */
    public static EventIdentity rootOccurrence(Object businessKey, long inputSeqNum) {
        byte[] id = StoreJni.rootOccurrence(BusinessKey.of(businessKey), inputSeqNum);
        EventIdentity root = new EventIdentity(OCCURRENCE, new String(id, java.nio.charset.StandardCharsets.UTF_8), null);
        root.occurrenceUtf8 = id;
        return root;
    }

    int kind() {
        return kind;
    }

    /** What crosses with an entry key; never modified (callers only hand it to the native store). */
    byte[] payload() {
        if (kind != OCCURRENCE) {
            return digest;
        }
        if (occurrenceUtf8 == null) {
            occurrenceUtf8 = Utf8.encode(occurrenceId, "event occurrence id");
        }
        return occurrenceUtf8;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof EventIdentity)) {
            return false;
        }
        EventIdentity other = (EventIdentity) o;
        return kind == other.kind && Objects.equals(occurrenceId, other.occurrenceId) && Arrays.equals(digest, other.digest);
    }

    @Override
    public int hashCode() {
        if (hash == 0) {
            hash = Objects.hash(kind, occurrenceId, Arrays.hashCode(digest));
        }
        return hash;
    }

    @Override
    public String toString() {
        return kind == OCCURRENCE ? "occurrence:" + occurrenceId : "attributes:" + digest.length + "B";
    }
}
