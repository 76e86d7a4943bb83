package io.durablejournal.flink.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * A stub given as the JSON a call's value is recorded as (a command's {@code --stub id=json}):
 * the replay answers the call as if the recording had that value, decoded as the call's result
 * class as the journal decodes a recorded result. JSON {@code null} answers null. Immutable.
 */
public final class RecordedValueStub implements Callable<Object> {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final byte[] json;
    private final JsonNode tree;

    private RecordedValueStub(byte[] json, JsonNode tree) {
        this.json = json;
        this.tree = tree;
    }

    /**
     * @param json one JSON value: {@code "mail sent"}, {@code 42}, {@code {"id":7}}, {@code null}
     * @throws IllegalArgumentException when {@code json} is not one JSON value
     */
    public static RecordedValueStub of(String json) {
        Objects.requireNonNull(json, "json");
        JsonNode tree;
        try {
            tree = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("a stub's value is not JSON: " + e.getOriginalMessage(), e);
        }
        if (tree == null || tree.isMissingNode()) {
            throw new IllegalArgumentException("a stub's value is empty: give one JSON value (null for a null result)");
        }
        return new RecordedValueStub(tree.isNull() ? null : json.getBytes(StandardCharsets.UTF_8), tree);
    }

    /** The value as recorded: JSON bytes, or null for a null result. */
    byte[] json() {
        return json == null ? null : json.clone();
    }

    /** The value as a JSON tree (a replay decodes it as the call's result class instead). */
    @Override
    public Object call() {
        return tree.deepCopy();
    }

    @Override
    public String toString() {
        return "RecordedValueStub" + tree;
    }
}
