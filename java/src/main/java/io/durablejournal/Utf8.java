package io.durablejournal;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Strict UTF-8 for identity strings: a lone surrogate is an error, never a silent '?'. */
final class Utf8 {
    private Utf8() {}

    static byte[] encode(String value, String name) {
        if (value == null) {
            throw new NullPointerException(name + " must not be null");
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

    static String decode(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
