package io.durablejournal.store;

import io.durablejournal.internal.CalledFromNative;
import io.durablejournal.internal.Utf8;
import java.util.Objects;

/**
 * A Java business key in the boundary form the native store reads (field by field, {@code
 * business_key} in rust/jni/store.rs): a kind code (shared with {@code KEY_*} there), a number
 * for {@code Long}/{@code Integer}, bytes for a {@code String} (UTF-8), a {@code byte[]} or a
 * typed key, and the class name of a typed key. The canonical encoding itself is done once, in
 * Rust.
 */
final class BusinessKey {
    static final int STR = 1;
    static final int LONG = 2;
    static final int INT = 3;
    static final int BYTES = 4;
    static final int TYPED = 5;

    @CalledFromNative
    final int kind;
    @CalledFromNative
    final long number;
    @CalledFromNative
    final byte[] bytes;
    @CalledFromNative
    final byte[] typeName;

    private BusinessKey(int kind, long number, byte[] bytes, byte[] typeName) {
        this.kind = kind;
        this.number = number;
        this.bytes = bytes;
        this.typeName = typeName;
    }

    /**
     * String, Long, Integer and byte[] map to their own kinds; any other object becomes a typed
     * key of its class name and the UTF-8 of its {@code toString()}, which must be overridden
     * (Object's identity-hash form would differ in every JVM and lose every journal). A {@link
     * GroupedKey} is its {@link GroupedKey#key() key}: the key group is not part of the address.
     */
    static BusinessKey of(Object key) {
        Objects.requireNonNull(key, "key");
        if (key instanceof GroupedKey) {
            key = ((GroupedKey) key).key();
        }
        if (key instanceof String) {
            return new BusinessKey(STR, 0, Utf8.encode((String) key, "key"), null);
        }
        if (key instanceof Long) {
            return new BusinessKey(LONG, (Long) key, null, null);
        }
        if (key instanceof Integer) {
            return new BusinessKey(INT, (Integer) key, null, null);
        }
        if (key instanceof byte[]) {
            return new BusinessKey(BYTES, 0, ((byte[]) key).clone(), null);
        }
        Class<?> type = key.getClass();
        if (!overridesToString(type)) {
            throw new IllegalArgumentException("business key of type " + type.getName()
                    + " does not override toString(); a typed key is its class name plus toString(), which must be"
                    + " deterministic across JVMs (use a String, Long, Integer or byte[] key, or override toString())");
        }
        String text = Objects.requireNonNull(key.toString(), "key.toString()");
        return new BusinessKey(TYPED, 0, Utf8.encode(text, "key.toString()"), Utf8.encode(type.getName(), "key type"));
    }

    private static boolean overridesToString(Class<?> type) {
        try {
            return type.getMethod("toString").getDeclaringClass() != Object.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
