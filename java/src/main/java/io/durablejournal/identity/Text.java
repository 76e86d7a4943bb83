package io.durablejournal.identity;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Strict UTF-8 for identity strings: a lone surrogate is an error, never a silent '?'. */
final class Text {
    private Text() {}

    /** UTF-8 of a required string; null is a NullPointerException naming it. */
    static byte[] utf8(String value, String name) {
        if (value == null) {
            throw new NullPointerException(name + " must not be null");
        }
        return utf8OrNull(value, name);
    }

    /** UTF-8 of an optional string (null stays null, which the native side reads as absent). */
    static byte[] utf8OrNull(String value, String name) {
        if (value == null) {
            return null;
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
            throw new IllegalArgumentException(name + " is not valid Unicode (lone surrogate)", e);
        }
    }

    static String decode(byte[] utf8) {
        return new String(utf8, StandardCharsets.UTF_8);
    }

    /** Index of the first unpaired surrogate in {@code s}, or -1. */
    static int loneSurrogateAt(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return i;
            }
            if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }
}
