package io.durablejournal.internal;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 for strings that carry identity (call ids, keys, occurrence ids) on their way to
 * the native library: a lone surrogate is an error, never a silent '?' that would make two
 * different ids equal. Shared by every package of this library.
 */
public final class Utf8 {
    private Utf8() {}

    /** UTF-8 of a required string; null is a NullPointerException naming it. */
    public static byte[] encode(String value, String name) {
        if (value == null) {
            throw new NullPointerException(name + " must not be null");
        }
        return encodeOrNull(value, name);
    }

    /** UTF-8 of an optional string; null stays null (the native side reads it as absent). */
    public static byte[] encodeOrNull(String value, String name) {
        if (value == null) {
            return null;
        }
        if (isWellFormed(value)) {
            // Exactly what the strict encoder gives, without building one per call.
            return value.getBytes(StandardCharsets.UTF_8);
        }
        try {
            ByteBuffer buffer = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(value));
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(name + " is not valid Unicode (lone surrogate): " + e.getMessage(), e);
        }
    }

    /** True iff {@code value} has no surrogate at all, or only surrogates in high-low pairs. */
    public static boolean isWellFormed(String value) {
        for (int i = 0, n = value.length(); i < n; i++) {
            char c = value.charAt(i);
            if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 == n || !Character.isLowSurrogate(value.charAt(i + 1))) {
                    return false;
                }
                i++;
            }
        }
        return true;
    }

    /** The string the native library returned as UTF-8. */
    public static String decode(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
