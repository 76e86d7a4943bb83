package io.durablejournal.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.durablejournal.ActionState;
import io.durablejournal.CallResult;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalException;
import io.durablejournal.RunnerContextImpl;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A replayed result is exactly what Flink Agents' payload mapper (Jackson's defaults plus
 * JavaTimeModule) reads from the recorded bytes, and a payload it cannot read is
 * PAYLOAD_UNREADABLE, whatever shortcut the replay takes for common types. Covered: strings of
 * lengths 0-18 and 41 (around the 8-byte blocks) with each special byte at each position, long
 * ones (the native check) with special bytes around its chunks, escapes, lone
 * surrogates, malformed and genuine U+FFFD, trailing content, and integer and boolean edge forms.
 */
class ReplayedPayloadsTest {
    private static final ObjectMapper FLINK_AGENTS_PAYLOAD_MAPPER = new ObjectMapper().registerModule(new JavaTimeModule());

    @Test
    void stringsReplayAsJacksonReadsThem() throws Exception {
        List<byte[]> payloads = new ArrayList<>();
        for (int length = 0; length <= 41; length = length < 18 ? length + 1 : length + 23) {
            String plain = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ".substring(0, length);
            payloads.add(quoted(plain.getBytes(StandardCharsets.UTF_8)));
            for (int at = 0; at < length; at++) {
                for (int special : new int[] {'"', '\\', 0x00, 0x1F, ' ', 0x7F, 0x80, 0xC0, 0xE2, 0xFF}) {
                    byte[] raw = plain.getBytes(StandardCharsets.UTF_8);
                    raw[at] = (byte) special;
                    payloads.add(quoted(raw));
                }
                payloads.add(written(plain.substring(0, at) + "é😀\n\"\\\uD83D" + plain.substring(at)));
            }
        }
        for (String text : new String[] {"é", "😀", "\uFFFD", "x\uFFFDy", "\uD83D", "\uDE00x", "日本語のテキスト", "\u0000", "\u007F"}) {
            payloads.add(written(text));
            payloads.add(quoted(text.getBytes(StandardCharsets.UTF_8)));
        }
        for (int[] bytes : new int[][] {
                {0xED, 0xA0, 0xBD}, {0xC0, 0x80}, {0xE2, 0x82}, {0xF8, 0x88, 0x80, 0x80}, {0xF4, 0x90, 0x80, 0x80},
                {0xF0, 0x9F, 0x98}, {0xEF, 0xBF, 0xBD}, {0x61, 0xBF}}) {
            payloads.add(quoted(unsigned(bytes)));
        }
        for (String json : new String[] {"\"ab\" x", "\"ab\"x\"", " \"ab\"", "\"ab\" ", "\uFEFF\"ab\"", "\"ab", "ab\"", "\"", "42",
                "null", "true", "[\"a\"]", "{\"a\":1}", "\"\\u0041\""}) {
            payloads.add(json.getBytes(StandardCharsets.UTF_8));
        }
        Random random = new Random(7);
        for (int n = 0; n < 300; n++) {
            StringBuilder text = new StringBuilder();
            for (int length = random.nextInt(50); length > 0; length--) {
                int kind = random.nextInt(10);
                text.appendCodePoint(kind < 6 ? 0x20 + random.nextInt(0x5F) : kind < 8 ? random.nextInt(0x800) : random.nextInt(0x110000));
            }
            payloads.add(written(text.toString()));
        }
        assertReplaysAsJacksonReads(String.class, payloads);
    }

    /**
     * Strings from 4096 bytes on are checked by the native library (64-byte chunks): each special
     * byte at the edges of the payload and of the chunks, in the ASCII and the non-ASCII case.
     */
    @Test
    void longStringsReplayAsJacksonReadsThem() throws Exception {
        List<byte[]> payloads = new ArrayList<>();
        for (int length : new int[] {600, 4093, 4094, 4095, 10238}) {
            StringBuilder plain = new StringBuilder();
            for (int i = 0; i < length; i++) {
                plain.append((char) ('a' + i % 26));
            }
            byte[] ascii = plain.toString().getBytes(StandardCharsets.UTF_8);
            payloads.add(quoted(ascii));
            payloads.add(written(plain.substring(0, length / 2) + "é日😀" + plain.substring(length / 2)));
            for (int at : new int[] {0, 1, 62, 63, 64, 65, 127, 128, length / 2, length - 2, length - 1}) {
                for (int special : new int[] {'"', '\\', 0x00, 0x1F, 0x7F, 0x80, 0xC0, 0xFF}) {
                    byte[] raw = ascii.clone();
                    raw[at] = (byte) special;
                    payloads.add(quoted(raw));
                }
                payloads.add(written(plain.substring(0, at) + "\n\"\uD83D\uFFFD" + plain.substring(at)));
            }
        }
        assertReplaysAsJacksonReads(String.class, payloads);
    }

    @Test
    void integersAndBooleansReplayAsJacksonReadsThem() throws Exception {
        List<byte[]> payloads = new ArrayList<>();
        for (String json : new String[] {"0", "-0", "1", "-1", "7", "01", "-01", "00", "1.0", "1e2", "1E2", "+1", " 1", "1 ", "-",
                "2147483647", "2147483648", "-2147483648", "-2147483649", "999999999999999999", "-999999999999999999",
                "1000000000000000000", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                "-9223372036854775809", "12345678901234567890123", "\"42\"", "null", "true", "false", "True", "tru", "falsey",
                " true", "true ", "1x", "0x10", "NaN", "[1]"}) {
            payloads.add(json.getBytes(StandardCharsets.UTF_8));
        }
        assertReplaysAsJacksonReads(Integer.class, payloads);
        assertReplaysAsJacksonReads(Long.class, payloads);
        assertReplaysAsJacksonReads(Boolean.class, payloads);
        assertReplaysAsJacksonReads(String.class, payloads);
    }

    /** Records every payload as a slot, replays them all as {@code type}, and compares each with Jackson. */
    private static <T> void assertReplaysAsJacksonReads(Class<T> type, List<byte[]> payloads) throws Exception {
        ActionState state = new ActionState();
        for (int i = 0; i < payloads.size(); i++) {
            state.addCallResult(new CallResult("call-" + i, payloads.get(i), null));
        }
        AtomicInteger executions = new AtomicInteger();
        try (DurableExecutionContext journal = new DurableExecutionContext(state, null)) {
            RunnerContextImpl runner = new RunnerContextImpl(journal);
            for (int i = 0; i < payloads.size(); i++) {
                byte[] payload = payloads.get(i);
                String what = type.getSimpleName() + " from " + describe(payload);
                assertEquals(jacksonReads(payload, type), replayed(runner, DurableCallable.of("call-" + i, type, () -> {
                    executions.incrementAndGet();
                    return null;
                })), what);
            }
            assertEquals(payloads.size(), journal.getReplayedCallCount());
        }
        assertEquals(0, executions.get());
    }

    private static Object jacksonReads(byte[] payload, Class<?> type) {
        try {
            return FLINK_AGENTS_PAYLOAD_MAPPER.readValue(payload, type);
        } catch (Exception e) {
            return "unreadable";
        }
    }

    private static Object replayed(RunnerContextImpl runner, DurableCallable<?> call) throws Exception {
        try {
            return runner.durableExecute(call);
        } catch (JournalException e) {
            assertEquals(JournalException.Code.PAYLOAD_UNREADABLE, e.getCode(), e.getMessage());
            return "unreadable";
        }
    }

    private static byte[] written(String value) throws Exception {
        return FLINK_AGENTS_PAYLOAD_MAPPER.writeValueAsBytes(value);
    }

    private static byte[] quoted(byte[] inner) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write('"');
        out.write(inner, 0, inner.length);
        out.write('"');
        return out.toByteArray();
    }

    private static byte[] unsigned(int[] values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }

    private static String describe(byte[] payload) {
        StringBuilder hex = new StringBuilder();
        for (byte b : payload) {
            hex.append(String.format("%02x", b & 0xFF));
        }
        return hex.toString();
    }
}
