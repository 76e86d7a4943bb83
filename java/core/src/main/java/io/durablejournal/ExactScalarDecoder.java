package io.durablejournal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Decodes the common result payloads without Jackson: a JSON string as {@code String}, an
 * integer as {@code Integer} or {@code Long}, {@code true}/{@code false} as {@code Boolean}.
 * Replaying a recorded String is then a validation pass and one copy instead of Jackson's
 * character-by-character parse, which dominates a replay of large results.
 *
 * <p>It only answers when the answer is certainly Jackson's: the payload is exactly one token of
 * the requested type in its plainest form (a string without escapes or control characters whose
 * bytes are well-formed UTF-8; an integer without sign, fraction, exponent or leading zeros
 * beyond {@code -} and one {@code 0}, that fits the type). Anything else, including everything
 * Jackson would refuse, returns {@link #UNDECIDED} and goes to Jackson.
 */
final class ExactScalarDecoder {
    /** Returned when this decoder does not answer: use Jackson. */
    static final Object UNDECIDED = new Object();

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final long QUOTES = '"' * ONES;
    private static final long BACKSLASHES = '\\' * ONES;
    private static final long SPACES = ' ' * ONES;
    private static final long ABOVE_CONTROLS = 0x60 * ONES;
    private static final long NONZERO = 0x7F * ONES;
    /**
     * From this payload size on a string is checked by {@link SerdeJni#isPlainJsonString}
     * (measured: {@code PayloadDecodeBenchmark}).
     */
    static final int NATIVE_CHECK_MIN_BYTES = 4096;

    private ExactScalarDecoder() {}

    static Object decode(byte[] payload, Class<?> type) {
        if (type == String.class) {
            return string(payload);
        }
        if (type == Integer.class) {
            Object value = integer(payload);
            return value instanceof Long && (long) value == (int) (long) value ? Integer.valueOf((int) (long) value) : UNDECIDED;
        }
        if (type == Long.class) {
            return integer(payload);
        }
        if (type == Boolean.class) {
            return bool(payload);
        }
        return UNDECIDED;
    }

    /** {@code "..."} with nothing to unescape: the UTF-8 bytes between the quotes, if well-formed. */
    private static Object string(byte[] p) {
        int end = p.length - 1;
        if (end < 1 || p[0] != '"' || p[end] != '"') {
            return UNDECIDED;
        }
        // Long ones are checked by the native library with vector instructions, in place:
        // several times faster than the word-at-a-time loop once the crossing is paid.
        return p.length >= NATIVE_CHECK_MIN_BYTES ? stringCheckedNatively(p) : stringCheckedByWords(p);
    }

    /** {@link #string} with the check done by the native library. */
    static Object stringCheckedNatively(byte[] p) {
        return SerdeJni.isPlainJsonString(p) ? new String(p, 1, p.length - 2, StandardCharsets.UTF_8) : UNDECIDED;
    }

    /** {@link #string} with the check done here, eight bytes at a time; for a payload in quotes. */
    static Object stringCheckedByWords(byte[] p) {
        int end = p.length - 1;
        int i = 1;
        // ASCII text first, with the cheaper test that holds only for bytes below 0x80; the first
        // pair of words with a special or a non-ASCII byte goes on to the exact test below.
        for (; i + 2 * Long.BYTES <= end; i += 2 * Long.BYTES) {
            long first = (long) LONGS.get(p, i);
            long second = (long) LONGS.get(p, i + Long.BYTES);
            if (((~(plainAscii(first) & plainAscii(second)) | first | second) & HIGH_BITS) != 0) {
                break;
            }
        }
        long nonAscii = 0;
        // Two words per step: the checks of one do not wait for the other's.
        for (; i + 2 * Long.BYTES <= end; i += 2 * Long.BYTES) {
            long first = (long) LONGS.get(p, i);
            long second = (long) LONGS.get(p, i + Long.BYTES);
            if ((special(first) | special(second)) != 0) {
                return UNDECIDED;
            }
            nonAscii |= first | second;
        }
        for (; i < end; i++) {
            byte b = p[i];
            if (b == '"' || b == '\\' || (b >= 0 && b < ' ')) {
                return UNDECIDED;
            }
            nonAscii |= b;
        }
        String value = new String(p, 1, end - 1, StandardCharsets.UTF_8);
        // The String constructor replaces malformed UTF-8 with U+FFFD where Jackson may fail or
        // decode differently; a U+FFFD in the result, decoded or genuine, goes to Jackson.
        if ((nonAscii & HIGH_BITS) != 0 && value.indexOf('\uFFFD') >= 0) {
            return UNDECIDED;
        }
        return value;
    }

    /**
     * For a word of ASCII bytes only: the high bit of each byte is set iff that byte is not a
     * quote, a backslash or below 0x20. With every byte below 0x80 no sum carries into the next
     * byte: b + 0x60 reaches 0x80 iff b >= 0x20, and (b ^ c) + 0x7F reaches 0x80 iff b != c.
     */
    private static long plainAscii(long word) {
        return (word + ABOVE_CONTROLS) & ((word ^ QUOTES) + NONZERO) & ((word ^ BACKSLASHES) + NONZERO);
    }

    /**
     * Non-zero iff a byte of {@code word} is a quote, a backslash or below 0x20. Each term is the
     * SWAR "has a byte below n" test, (w - n*ONES) & ~w & HIGH_BITS, which is exact as a yes/no:
     * it may flag extra bytes above a real hit, never a word without one. Bytes of 0x80 and above
     * (UTF-8 sequences) never match.
     */
    private static long special(long word) {
        long quotes = word ^ QUOTES;
        long backslashes = word ^ BACKSLASHES;
        return ((quotes - ONES) & ~quotes | (backslashes - ONES) & ~backslashes | (word - SPACES) & ~word) & HIGH_BITS;
    }

    /** {@code -?(0|[1-9][0-9]*)} of at most 18 digits (so it fits a long) as a Long. */
    private static Object integer(byte[] p) {
        int i = p.length > 0 && p[0] == '-' ? 1 : 0;
        int digits = p.length - i;
        if (digits < 1 || digits > 18 || (p[i] == '0' && digits > 1)) {
            return UNDECIDED;
        }
        long magnitude = 0;
        for (; i < p.length; i++) {
            int digit = p[i] - '0';
            if (digit < 0 || digit > 9) {
                return UNDECIDED;
            }
            magnitude = magnitude * 10 + digit;
        }
        return p[0] == '-' ? -magnitude : magnitude;
    }

    private static Object bool(byte[] p) {
        if (p.length == 4 && p[0] == 't' && p[1] == 'r' && p[2] == 'u' && p[3] == 'e') {
            return Boolean.TRUE;
        }
        if (p.length == 5 && p[0] == 'f' && p[1] == 'a' && p[2] == 'l' && p[3] == 's' && p[4] == 'e') {
            return Boolean.FALSE;
        }
        return UNDECIDED;
    }
}
