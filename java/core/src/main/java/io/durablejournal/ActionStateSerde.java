package io.durablejournal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * ActionState to and from the JSON of Flink Agents' ActionStateSerde. Reading goes through the
 * Rust parser first (it validates, infers the status of legacy slots and writes the canonical
 * form), so both languages read a record the same way; Java then only splits the canonical JSON,
 * keeping every body as its exact text.
 *
 * <p>Written with Jackson's streaming API instead of data binding: bodies are copied as the
 * text they are (a tree would turn {@code 1e400} into {@code "Infinity"} and digits past a
 * double's into a neighbouring double), and slots carry exactly the fields Flink Agents'
 * {@code CallResult} knows.
 */
public final class ActionStateSerde {
    private ActionStateSerde() {}

    public static byte[] serialize(ActionState state) {
        Objects.requireNonNull(state, "state");
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = JsonBodies.NATIVE_CHECKED.createGenerator(out)) {
            json.writeStartObject();
            if (state.getTaskEventJson() != null) {
                json.writeFieldName("taskEvent");
                json.writeRawValue(state.getTaskEventJson());
            }
            writeBodies(json, "sensoryMemoryUpdates", state.sensoryMemoryUpdatesJson());
            writeBodies(json, "shortTermMemoryUpdates", state.shortTermMemoryUpdatesJson());
            writeBodies(json, "outputEvents", state.outputEventsJson());
            json.writeArrayFieldStart("callResults");
            for (CallResult slot : state.callResults()) {
                writeCallResult(json, slot);
            }
            json.writeEndArray();
            json.writeBooleanField("completed", state.isCompleted());
            for (Map.Entry<String, String> field : state.otherFieldsJson().entrySet()) {
                json.writeFieldName(field.getKey());
                json.writeRawValue(field.getValue());
            }
            json.writeEndObject();
        } catch (IOException | RuntimeException e) {
            throw new JournalException(JournalException.Code.MALFORMED_JSON, "cannot serialize ActionState: " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    /**
     * The record the bytes hold, with the recorded hits the native library found in it (see
     * {@link DurableExecutionContext#resuming(ActionState, java.util.function.Supplier)}).
     *
     * @throws JournalException with code MALFORMED_JSON when the bytes are not an ActionState
     */
    public static ActionState deserialize(byte[] json) {
        Objects.requireNonNull(json, "json");
        int[] hitCount = new int[1];
        ActionState state = fromCanonical(SerdeJni.normalizeCountingHits(json, hitCount));
        state.setHitCount(hitCount[0]);
        return state;
    }

    /** Binds JSON the Rust core produced (already validated and normalized). */
    static ActionState fromCanonical(byte[] canonicalJson) {
        ActionState state = new ActionState();
        try (JsonParser json = JsonBodies.NATIVE_CHECKED.createParser(canonicalJson)) {
            expect(json, json.nextToken(), JsonToken.START_OBJECT);
            while (json.nextToken() == JsonToken.FIELD_NAME) {
                String name = json.currentName();
                JsonToken value = json.nextToken();
                switch (name) {
                    case "taskEvent":
                        state.setTaskEventJson(value == JsonToken.VALUE_NULL ? null : body(json, canonicalJson));
                        break;
                    case "sensoryMemoryUpdates":
                        readBodies(json, canonicalJson, state.sensoryMemoryUpdatesJson());
                        break;
                    case "shortTermMemoryUpdates":
                        readBodies(json, canonicalJson, state.shortTermMemoryUpdatesJson());
                        break;
                    case "outputEvents":
                        readBodies(json, canonicalJson, state.outputEventsJson());
                        break;
                    case "callResults":
                        expect(json, value, JsonToken.START_ARRAY);
                        while (json.nextToken() != JsonToken.END_ARRAY) {
                            state.callResults().add(readCallResult(json));
                        }
                        break;
                    case "completed":
                        state.setCompleted(value == JsonToken.VALUE_TRUE);
                        break;
                    default:
                        state.otherFieldsJson().put(name, body(json, canonicalJson));
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new JournalException(JournalException.Code.MALFORMED_JSON, "cannot bind ActionState: " + e.getMessage(), e);
        }
        return state;
    }

    private static void writeBodies(JsonGenerator json, String name, List<String> bodies) throws IOException {
        json.writeArrayFieldStart(name);
        for (String body : bodies) {
            json.writeRawValue(body);
        }
        json.writeEndArray();
    }

    /** The fields of Flink Agents' {@code CallResult} and no other: its reader fails on one it does not know. */
    private static void writeCallResult(JsonGenerator json, CallResult slot) throws IOException {
        json.writeStartObject();
        json.writeStringField("functionId", slot.getFunctionId());
        json.writeStringField("argsDigest", slot.getArgsDigest());
        json.writeStringField("status", slot.getStatus() == null ? null : slot.getStatus().name());
        writeBytes(json, "resultPayload", slot.recordedResult());
        writeBytes(json, "exceptionPayload", slot.recordedException());
        json.writeEndObject();
    }

    private static void writeBytes(JsonGenerator json, String name, byte[] bytes) throws IOException {
        if (bytes == null) {
            json.writeNullField(name);
        } else {
            json.writeBinaryField(name, bytes);
        }
    }

    /** The current value's exact text, sliced from the input by its byte offsets. */
    private static String body(JsonParser json, byte[] input) throws IOException {
        long start = json.currentTokenLocation().getByteOffset();
        if (json.currentToken().isStructStart()) {
            json.skipChildren();
        } else {
            json.finishToken(); // a string is read lazily: this moves past its closing quote
        }
        long end = json.currentLocation().getByteOffset();
        return new String(input, (int) start, (int) (end - start), StandardCharsets.UTF_8);
    }

    private static void readBodies(JsonParser json, byte[] input, List<String> into) throws IOException {
        expect(json, json.currentToken(), JsonToken.START_ARRAY);
        while (json.nextToken() != JsonToken.END_ARRAY) {
            into.add(body(json, input));
        }
    }

    private static CallResult readCallResult(JsonParser json) throws IOException {
        expect(json, json.currentToken(), JsonToken.START_OBJECT);
        String functionId = null;
        String argsDigest = null;
        CallResult.Status status = null;
        byte[] result = null;
        byte[] exception = null;
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            String name = json.currentName();
            boolean isNull = json.nextToken() == JsonToken.VALUE_NULL;
            switch (name) {
                case "functionId":
                    functionId = isNull ? null : json.getText();
                    break;
                case "argsDigest":
                    argsDigest = isNull ? null : json.getText();
                    break;
                case "status":
                    status = isNull ? null : CallResult.Status.valueOf(json.getText());
                    break;
                case "resultPayload":
                    result = isNull ? null : json.getBinaryValue();
                    break;
                case "exceptionPayload":
                    exception = isNull ? null : json.getBinaryValue();
                    break;
                default:
                    json.skipChildren();
            }
        }
        return CallResult.read(functionId, argsDigest, status, result, exception);
    }

    private static void expect(JsonParser json, JsonToken actual, JsonToken expected) throws IOException {
        if (actual != expected) {
            throw new IOException("expected " + expected + " but found " + actual + " at " + json.currentLocation());
        }
    }
}
