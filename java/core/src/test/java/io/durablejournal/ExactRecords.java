package io.durablejournal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Records holding what a journal must give back exactly: numbers no double holds, lone
 * surrogates (text cut mid-emoji), key order, unknown fields, a null function id and Flink Agents'
 * args digests. Written in the canonical form (the field order and escapes the native core
 * writes), so a lossless round trip gives back the very same text.
 */
public final class ExactRecords {
    /** Each changes if it passes through a double, a default Jackson tree or serde_json's Value. */
    public static final String NUMBERS = "[0.12073605139050847,18446744073709551616,123456789012345678901234567890,"
            + "1e400,-0.0,4.9e-324,1.9999999999999998E23,2.50,-1E-400]";

    /** A result payload that is itself a number which a double would change. */
    public static final String RESULT = "0.12073605139050847";

    private ExactRecords() {}

    public static String record() {
        return "{\"taskEvent\":{\"@class\":\"org.example.InputEvent\",\"input\":" + NUMBERS
                + ",\"text\":\"cut \\uD83D\",\"order\":{\"z\":1,\"a\":2,\"m\":{\"y\":1,\"b\":2}}},"
                + "\"sensoryMemoryUpdates\":[{\"path\":\"n\",\"value\":" + NUMBERS + "}],"
                + "\"shortTermMemoryUpdates\":[{\"path\":\"s\",\"value\":\"\\uDE00 alone\"}],"
                + "\"outputEvents\":[{\"@class\":\"org.example.OutputEvent\",\"output\":" + NUMBERS + "}],"
                + "\"callResults\":["
                + slot("\"tool-call:a\"", "\"\"", "SUCCEEDED", base64(RESULT), "null") + ","
                + slot("null", "\"\"", "SUCCEEDED", base64("2"), "null") + ","
                + slot("\"tool-call:\\uD83D\"", "null", "FAILED", "null", base64("{}")) + ","
                + slot("\"py.search::0123456789abcdef\"", "\"9f86d081884c7d65\"", "PENDING", "null", "null")
                + "],\"completed\":false,\"subagentResultEvents\":" + NUMBERS + ",\"\\uDE00\":-0.0}";
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
