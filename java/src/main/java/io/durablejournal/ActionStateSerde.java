package io.durablejournal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Objects;

/**
 * ActionState to and from the JSON of Flink Agents' ActionStateSerde. Reading goes through the
 * Rust parser first (it validates, and infers the status of legacy slots), so both languages read
 * a record the same way; Jackson only binds the canonical result.
 */
public final class ActionStateSerde {
    static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private ActionStateSerde() {}

    public static byte[] serialize(ActionState state) {
        Objects.requireNonNull(state, "state");
        try {
            return MAPPER.writeValueAsBytes(state);
        } catch (IOException e) {
            throw new JournalException(JournalException.Code.MALFORMED_JSON, "cannot serialize ActionState: " + e.getMessage(), e);
        }
    }

    /** @throws JournalException with code MALFORMED_JSON when the bytes are not an ActionState */
    public static ActionState deserialize(byte[] json) {
        Objects.requireNonNull(json, "json");
        return fromCanonical(NativeSerde.normalizeActionState(json));
    }

    /** Binds JSON the Rust core produced (already validated and normalized). */
    static ActionState fromCanonical(byte[] canonicalJson) {
        try {
            return MAPPER.readValue(canonicalJson, ActionState.class);
        } catch (IOException e) {
            throw new JournalException(JournalException.Code.MALFORMED_JSON, "cannot bind ActionState: " + e.getMessage(), e);
        }
    }
}
