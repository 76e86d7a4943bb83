package io.durablejournal.store;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Strict UTF-8 for strings that address entries: a lone surrogate is an error, never a '?'. */
final class Utf8Strict {
    private Utf8Strict() {}

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
}
