package io.durablejournal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Opaque ActionState bodies between their JSON text (what a record keeps) and Jackson trees
 * (what {@link ActionState}'s {@link JsonNode} accessors hand out).
 */
final class JsonBodies {
    /**
     * Numbers as exact as a tree holds them: integers of any size, and floating-point numbers as
     * {@code BigDecimal} with their scale ({@code 1e400} stays finite, {@code 2.50} keeps its
     * zero). Only the sign of {@code -0.0} has no tree form; the text keeps it.
     */
    private static final ObjectMapper TREES = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNumberLength(Integer.MAX_VALUE)
                            .maxStringLength(Integer.MAX_VALUE)
                            .build())
                    .build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false)
            .build();

    private JsonBodies() {}

    /** A tree of the body; a body that does not parse (never one the native core checked) is MALFORMED_JSON. */
    static JsonNode tree(String json) {
        try {
            return TREES.readTree(json);
        } catch (JsonProcessingException e) {
            throw new JournalException(JournalException.Code.MALFORMED_JSON, "a recorded JSON body cannot be read as a tree: " + e.getOriginalMessage(), e);
        }
    }

    static List<JsonNode> trees(List<String> bodies) {
        List<JsonNode> trees = new ArrayList<>(bodies.size());
        for (String body : bodies) {
            trees.add(tree(body));
        }
        return trees;
    }

    /**
     * The tree's JSON text, as Jackson writes it to bytes: a lone surrogate in a string becomes a
     * {@code \\uXXXX} escape (the char-based writer would emit it raw, which no UTF-8 can hold).
     */
    static String text(JsonNode tree) {
        try {
            return new String(TREES.writeValueAsBytes(tree), StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JsonNode always serializes", e);
        }
    }
}
