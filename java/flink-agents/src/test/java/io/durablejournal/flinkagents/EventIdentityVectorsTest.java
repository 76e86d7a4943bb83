package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.durablejournal.TestVectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.agents.api.Event;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every case of tests/vectors/event_identity.json through {@link EventDigests}: an event of the
 * case's type, its attributes read from the case's JSON (numbers as Jackson reads them: int, long,
 * BigInteger, double, NaN), digested as the adapter digests an event without an occurrence id.
 */
class EventIdentityVectorsTest {
    private static final JsonMapper LENIENT = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    static Stream<JsonNode> cases() {
        List<JsonNode> cases = new ArrayList<>();
        TestVectors.read("event_identity.json").get("cases").forEach(cases::add);
        return cases.stream();
    }

    @ParameterizedTest(name = "case {index}")
    @MethodSource("cases")
    void theDigestOfTheTypeAndAttributesIsTheVectors(JsonNode vector) throws Exception {
        Event event = new Event(vector.get("type").textValue());
        @SuppressWarnings("unchecked")
        Map<String, Object> attributes = LENIENT.readValue(vector.get("attributes_json").textValue(), Map.class);
        attributes.forEach(event::setAttr);
        StringBuilder hex = new StringBuilder();
        for (byte b : EventDigests.digest(event)) {
            hex.append(String.format("%02x", b & 0xff));
        }
        assertEquals(vector.get("digest").textValue(), hex.toString(), vector.get("name").textValue());
    }
}
