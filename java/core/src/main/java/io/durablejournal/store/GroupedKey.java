package io.durablejournal.store;

import java.util.Arrays;
import java.util.Objects;

/**
 * A business key with the Flink key group its entries belong in, for a caller that files entries
 * under another key than the one Flink groups by: "file the entry under {@link #key()}, in key
 * group {@link #keyGroup()}". Flink Agents' operator is one (the adapter files every entry under
 * the key's text, while Flink routes a {@code Long} key by the {@code Long}'s hash).
 *
 * <p>Every store call that takes a key takes one. The stores file exactly what they file for
 * {@link #key()} alone (the same bytes; a get with the plain key finds an entry put with the
 * grouped one, and the other way round); the log store ({@link LogActionStateStore}) puts the
 * entry in {@link #keyGroup()} instead of computing the key group from the key's hash, so the
 * subtask that owns the Flink key owns its journals.
 */
public final class GroupedKey {
    private final Object key;
    private final int keyGroup;

    private GroupedKey(Object key, int keyGroup) {
        this.key = key;
        this.keyGroup = keyGroup;
    }

    /**
     * {@code key} in key group {@code keyGroup}. A null key is a NullPointerException; a negative
     * key group, or a key that is a GroupedKey already, an IllegalArgumentException. (A key group
     * at or above the store's max parallelism is refused by the log store that gets it.)
     */
    public static GroupedKey of(Object key, int keyGroup) {
        Objects.requireNonNull(key, "key");
        if (key instanceof GroupedKey) {
            throw new IllegalArgumentException("the key " + key + " is grouped already");
        }
        if (keyGroup < 0) {
            throw new IllegalArgumentException("negative key group " + keyGroup + " for key " + key);
        }
        return new GroupedKey(key, keyGroup);
    }

    /** The Flink key group the entries belong in. */
    public int keyGroup() {
        return keyGroup;
    }

    /** The business key the entries are filed under. */
    public Object key() {
        return key;
    }

    /** Equal keys in equal key groups ({@code byte[]} keys by their bytes). */
    @Override
    public boolean equals(Object o) {
        return o instanceof GroupedKey && keyGroup == ((GroupedKey) o).keyGroup && Objects.deepEquals(key, ((GroupedKey) o).key);
    }

    @Override
    public int hashCode() {
        return 31 * keyGroup + (key instanceof byte[] ? Arrays.hashCode((byte[]) key) : key.hashCode());
    }

    @Override
    public String toString() {
        return "key '" + key + "' in key group " + keyGroup;
    }
}
