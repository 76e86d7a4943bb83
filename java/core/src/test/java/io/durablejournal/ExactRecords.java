package io.durablejournal;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The exact record of tests/vectors/exact_record.json (also read by the Rust store tests): what a
 * journal must give back exactly, written in the canonical form (the field order and escapes the
 * native core writes), so a lossless round trip gives back the very same text. Plus small builders
 * of records for the tests.
 */
public final class ExactRecords {
    private static final JsonNode VECTOR = TestVectors.read("exact_record.json");

    /** Each changes if it passes through a double, a default Jackson tree or serde_json's Value. */
    public static final String NUMBERS = VECTOR.get("numbers").textValue();

    /** The first slot's result payload: a number which a double would change. */
    public static final String RESULT = VECTOR.get("result").textValue();

    private ExactRecords() {}

    /** The record, its placeholders expanded as the vector file says. */
    public static String record() {
        int levels = VECTOR.get("deep_levels").intValue();
        String deep = repeat('[', levels) + "\"bottom\"" + repeat(']', levels);
        return VECTOR.get("record").textValue().replace("${numbers}", NUMBERS).replace("${deep}", deep);
    }

    private static String repeat(char c, int times) {
        char[] chars = new char[times];
        java.util.Arrays.fill(chars, c);
        return new String(chars);
    }

    /** A slot as the native core writes it; ids and digests are JSON literals. */
    public static String slot(String functionId, String argsDigest, String status, String result, String exception) {
        return "{\"functionId\":" + functionId + ",\"argsDigest\":" + argsDigest + ",\"status\":\"" + status
                + "\",\"resultPayload\":" + result + ",\"exceptionPayload\":" + exception + "}";
    }

    /** A JSON string literal of the base64 of {@code text}'s UTF-8. */
    public static String base64(String text) {
        return "\"" + Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8)) + "\"";
    }

    /** {@code depth} nested JSON arrays around a number. */
    public static String nested(int depth) {
        StringBuilder json = new StringBuilder();
        for (int i = 0; i < depth; i++) {
            json.append('[');
        }
        json.append('7');
        for (int i = 0; i < depth; i++) {
            json.append(']');
        }
        return json.toString();
    }

    public static byte[] utf8(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    public static String text(byte[] json) {
        return new String(json, StandardCharsets.UTF_8);
    }
}
