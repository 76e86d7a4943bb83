package io.durablejournal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Reads the JSON reports the native journal hands its exceptions ({@link
 * NonDeterministicReplayException}, {@link CallInterruptedException}): the entry's {@code key},
 * {@code sequenceNumber} and {@code action} (null when the journal has no entry address), then
 * fields of each report's own.
 */
final class NativeReports {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private NativeReports() {}

    static JsonNode read(byte[] json, String what) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("the native journal's " + what + " does not parse", e);
        }
    }

    /** A text field, or null when it is absent or null. */
    static String text(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }

    /** The report's sequence number, or null when the journal has no entry address. */
    static Long sequenceNumber(JsonNode report) {
        JsonNode seq = report.get("sequenceNumber");
        return seq == null || seq.isNull() ? null : seq.asLong();
    }
}
