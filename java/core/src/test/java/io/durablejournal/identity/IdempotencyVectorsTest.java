package io.durablejournal.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablejournal.JournalException;
import io.durablejournal.TestVectors;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every case of tests/vectors/idempotency.json through JNI: the key of an entry's encoding, call id
 * and occurrence. cargo test and pytest check the same file; DurableCallTest checks that a call on
 * a store's journal reads the key of its vector.
 */
public class IdempotencyVectorsTest {

    /** The cases of tests/vectors/idempotency.json, found above the working directory. */
    public static List<JsonNode> cases() {
        List<JsonNode> cases = new ArrayList<>();
        TestVectors.read("idempotency.json").get("cases").forEach(cases::add);
        return cases;
    }

    /** The case named {@code name}. */
    public static JsonNode named(String name) {
        return cases().stream().filter(c -> c.get("name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no vector named " + name));
    }

    static byte[] unhex(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }

    @TestFactory
    Stream<DynamicTest> everyVectorHolds() {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.get("name").asText(), () -> {
            byte[] entry = unhex(c.get("entry_hex").asText());
            String callId = c.get("call_id").asText();
            long occurrence = c.get("occurrence").asLong();
            if (c.has("error")) {
                JournalException e = assertThrows(JournalException.class,
                        () -> RuntimeIdentity.callIdempotencyKey(entry, callId, occurrence));
                assertEquals(c.get("error").asText(), e.getCode().name());
            } else {
                assertEquals(c.get("key").asText(), RuntimeIdentity.callIdempotencyKey(entry, callId, occurrence));
            }
        }));
    }

    @Test
    void nullArgumentsAreRefused() {
        assertThrows(NullPointerException.class, () -> RuntimeIdentity.callIdempotencyKey(null, "c", 0));
        assertThrows(NullPointerException.class, () -> RuntimeIdentity.callIdempotencyKey(new byte[] {1}, null, 0));
    }
}
