package io.durablejournal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.lang.reflect.Constructor;

/**
 * Java payloads of spec §2.6: a result is the Jackson JSON of the value (null for a null result);
 * a failure is {@code {"exceptionClass": ..., "message": ...}} and is rebuilt on replay.
 *
 * <p>Results are written and read by a mapper configured as Flink Agents' payload mapper (its
 * {@code RunnerContextImpl}: Jackson's defaults plus {@code JavaTimeModule}), so a result either
 * runtime recorded replays in the other with the same value: {@code java.time} values included,
 * written as Jackson's default numeric timestamps ({@code Instant} as seconds.nanos,
 * {@code LocalDate} as {@code [y,m,d]}), and an unknown property in a recorded object is an error
 * there and here. This mapper is separate from the one that reads ActionState records.
 */
final class Payloads {
    private static final ObjectMapper MAPPER = new ObjectMapper().registerModule(new JavaTimeModule());

    private Payloads() {}

    /**
     * @throws ResultNotSerializableException when Jackson cannot write the value (the caller
     *     records that failure as the call's outcome)
     */
    static byte[] encodeResult(String functionId, Object value) {
        if (value == null) {
            return null;
        }
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new ResultNotSerializableException("the result of '" + functionId + "' (" + value.getClass().getName()
                    + ") cannot be serialized as JSON, so it is recorded as this failure: " + e.getOriginalMessage(), e);
        }
    }

    static <T> T decodeResult(String functionId, byte[] payload, Class<T> resultClass) {
        if (payload == null) {
            return null;
        }
        Object plain = ExactScalarDecoder.decode(payload, resultClass);
        if (plain != ExactScalarDecoder.UNDECIDED) {
            return resultClass.cast(plain);
        }
        try {
            return MAPPER.readValue(payload, resultClass);
        } catch (IOException e) {
            throw new JournalException(JournalException.Code.PAYLOAD_UNREADABLE,
                    "the recorded result of '" + functionId + "' cannot be decoded as " + resultClass.getName() + ": " + e.getMessage(), e);
        }
    }

    static byte[] encodeFailure(Throwable failure) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("exceptionClass", failure.getClass().getName());
        node.put("message", failure.getMessage());
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an ObjectNode always serializes", e);
        }
    }

    /** The recorded failure as an exception to rethrow: its original class where possible. */
    static Exception decodeFailure(String functionId, byte[] payload, ClassLoader loader) {
        String className;
        String message;
        try {
            JsonNode node = MAPPER.readTree(payload);
            if (node == null || !node.hasNonNull("exceptionClass")) {
                throw new IOException("no exceptionClass field");
            }
            className = node.get("exceptionClass").asText();
            message = node.hasNonNull("message") ? node.get("message").asText() : null;
        } catch (IOException e) {
            throw new JournalException(JournalException.Code.PAYLOAD_UNREADABLE,
                    "the recorded failure of '" + functionId + "' cannot be decoded: " + e.getMessage(), e);
        }
        Exception rebuilt = instantiate(className, message, loader);
        return rebuilt != null ? rebuilt : new RuntimeException(className + ": " + message);
    }

    private static Exception instantiate(String className, String message, ClassLoader loader) {
        try {
            Class<?> type = Class.forName(className, false, loader);
            if (!Exception.class.isAssignableFrom(type)) {
                return null;
            }
            Constructor<?> constructor = type.getConstructor(String.class);
            return (Exception) constructor.newInstance(message);
        } catch (ReflectiveOperationException | LinkageError | SecurityException e) {
            return null;
        }
    }
}
