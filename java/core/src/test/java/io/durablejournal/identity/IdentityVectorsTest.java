package io.durablejournal.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.JournalException;
import io.durablejournal.TestVectors;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * Every case of tests/vectors/identity.json through the Java API (Java values -> tagged tree ->
 * JNI -> Rust). cargo test and pytest check the same file, so a parity break fails all three.
 */
class IdentityVectorsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode VECTORS = readVectors();

    static JsonNode readVectors() {
        return TestVectors.read("identity.json");
    }

    static List<JsonNode> cases() {
        List<JsonNode> cases = new ArrayList<>();
        VECTORS.get("cases").forEach(cases::add);
        return cases;
    }

    @TestFactory
    Stream<DynamicTest> everyVector() {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.get("kind").asText() + ": " + c.get("name").asText(), () -> check(c)));
    }

    @Test
    void vectorsAreEnoughAndCoverEveryKind() {
        List<JsonNode> cases = cases();
        assertTrue(cases.size() >= 60, "only " + cases.size() + " cases");
        Set<String> kinds = new HashSet<>();
        cases.forEach(c -> kinds.add(c.get("kind").asText()));
        assertEquals(new HashSet<>(List.of("args_digest", "call_id", "tool_call_id", "chat", "root_occurrence",
                "action_execution", "emitted_occurrence", "generated_call_id", "execution_identity")), kinds);
    }

    private static void check(JsonNode c) throws IOException {
        switch (c.get("kind").asText()) {
            case "args_digest":
                checkArgsDigest(c);
                break;
            case "call_id":
                checkCallId(c);
                break;
            case "tool_call_id":
                expect(c, () -> DurableIds.toolCallDurableId(c.get("tool_call_id").asText()));
                break;
            case "chat":
                assertEquals(c.get("expected").asText(), DurableIds.CHAT_DURABLE_ID);
                break;
            case "root_occurrence":
                expect(c, () -> RuntimeIdentity.rootOccurrence(
                        Base64.getDecoder().decode(c.get("business_key").asText()), c.get("input_sequence").asLong()));
                break;
            case "action_execution":
                expect(c, () -> RuntimeIdentity.actionExecution(
                        c.get("triggering_occurrence").asText(), c.get("action_name").asText()));
                break;
            case "emitted_occurrence":
                expect(c, () -> RuntimeIdentity.emittedOccurrence(
                        c.get("producer_execution").asText(), c.get("emission_ordinal").asLong()));
                break;
            case "generated_call_id":
                expect(c, () -> RuntimeIdentity.generatedCallId(
                        c.get("namespace").asText(), c.get("session_id").asText(), c.get("call_ordinal").asLong()));
                break;
            case "execution_identity":
                checkExecutionIdentity(c);
                break;
            default:
                throw new AssertionError("unknown kind " + c.get("kind"));
        }
    }

    private static void checkArgsDigest(JsonNode c) throws IOException {
        List<Object> args = new NativeValues(false).list(c.get("args"));
        Map<String, Object> kwargs = new NativeValues(false).kwargs(c.get("kwargs"));
        if (c.has("error")) {
            JournalException e = assertThrows(JournalException.class, () -> DurableIds.computeArgsDigest(args, kwargs));
            assertEquals(c.get("error").asText(), e.getCode().name());
            assertTrue(e.getMessage().contains("argument " + c.get("path").asText() + " has no canonical encoding"), e.getMessage());
            assertTrue(e.getMessage().contains("durable_id="), e.getMessage());
            return;
        }
        String digest = c.get("digest").asText();
        assertEquals(digest, DurableIds.computeArgsDigest(args, kwargs));
        // The Java values marshal to exactly the vector's tree.
        JsonNode expectedTree = JSON.createObjectNode().<com.fasterxml.jackson.databind.node.ObjectNode>set("args", c.get("args")).set("kwargs", c.get("kwargs"));
        assertEquals(expectedTree, JSON.readTree(CanonicalTree.callTreeJson(args, kwargs)));
        // Reversed map, set, field and keyword order, and narrower integer types: same digest.
        NativeValues variant = new NativeValues(true);
        assertEquals(digest, DurableIds.computeArgsDigest(variant.list(c.get("args")), variant.kwargs(c.get("kwargs"))));
    }

    private static void checkCallId(JsonNode c) {
        if (c.has("durable_id")) {
            // An explicit id never looks at the arguments: give it one with no canonical form.
            List<Object> args = List.of(new Object());
            expect(c, () -> DurableIds.durableIdentityForCall(c.get("function_id").asText(), args, Map.of(), c.get("durable_id").asText()));
            return;
        }
        NativeValues values = new NativeValues(false);
        List<Object> args = values.list(c.get("args"));
        Map<String, Object> kwargs = values.kwargs(c.get("kwargs"));
        expect(c, () -> DurableIds.durableIdentityForCall(c.get("function_id").asText(), args, kwargs, null));
    }

    private static void checkExecutionIdentity(JsonNode c) {
        String executionId = c.get("execution_id").asText();
        if (c.has("error")) {
            JournalException e = assertThrows(JournalException.class, () -> RuntimeIdentity.forExecution(executionId));
            assertEquals(c.get("error").asText(), e.getCode().name());
            return;
        }
        List<String> produced = new ArrayList<>();
        try (ExecutionIdentity ids = RuntimeIdentity.forExecution(executionId)) {
            for (JsonNode step : c.get("steps")) {
                Supplier call;
                if (step.has("emit")) {
                    JsonNode emit = step.get("emit");
                    String existing = emit.isNull() ? null : emit.asText();
                    if (existing != null && existing.startsWith("$")) {
                        existing = produced.get(Integer.parseInt(existing.substring(1)));
                    }
                    String finalExisting = existing;
                    call = () -> ids.emit(finalExisting);
                } else {
                    JsonNode next = step.get("next_call_id");
                    call = () -> ids.nextCallId(next.get("target").asText(), next.get("session_id").asText());
                }
                produced.add(expect(step, call));
            }
        }
    }

    interface Supplier {
        String get();
    }

    /** Checks the case's {@code expected} value or {@code error} code; returns the id, if any. */
    private static String expect(JsonNode c, Supplier call) {
        if (c.has("error")) {
            JournalException e = assertThrows(JournalException.class, (Executable) call::get);
            assertEquals(c.get("error").asText(), e.getCode().name(), e.getMessage());
            return null;
        }
        String actual = call.get();
        assertEquals(c.get("expected").asText(), actual);
        return actual;
    }

    /** Java values from tagged trees; {@code variant} reverses every unordered collection and narrows integers. */
    static final class NativeValues {
        private final boolean variant;

        NativeValues(boolean variant) {
            this.variant = variant;
        }

        List<Object> list(JsonNode items) {
            List<Object> out = new ArrayList<>();
            items.forEach(item -> out.add(value(item)));
            return out;
        }

        Map<String, Object> kwargs(JsonNode kwargs) {
            List<String> names = new ArrayList<>();
            kwargs.fieldNames().forEachRemaining(names::add);
            if (variant) {
                Collections.reverse(names);
            }
            Map<String, Object> out = new LinkedHashMap<>();
            names.forEach(name -> out.put(name, value(kwargs.get(name))));
            return out;
        }

        Object value(JsonNode tree) {
            if (tree.isNull()) {
                return null;
            }
            if (tree.isBoolean()) {
                return tree.booleanValue();
            }
            Map.Entry<String, JsonNode> only = tree.fields().next();
            JsonNode body = only.getValue();
            switch (only.getKey()) {
                case "int":
                    return integer(new BigInteger(body.asText()));
                case "float": {
                    double d = Double.longBitsToDouble(Long.parseUnsignedLong(body.asText(), 16));
                    // A Float is widened exactly, so one that holds the value must give the same digest.
                    return variant && (float) d == d ? (Object) (float) d : (Object) d;
                }
                case "str":
                    return body.asText();
                case "bytes":
                    return Base64.getDecoder().decode(body.asText());
                case "list":
                    return list(body);
                case "tuple":
                    return Tuple.copyOf(list(body));
                case "set": {
                    List<Object> items = ordered(list(body));
                    return new LinkedHashSet<>(items);
                }
                case "dict": {
                    List<Object[]> entries = new ArrayList<>();
                    body.forEach(pair -> entries.add(new Object[] {value(pair.get(0)), value(pair.get(1))}));
                    Map<Object, Object> out = new LinkedHashMap<>();
                    ordered(entries).forEach(e -> out.put(e[0], e[1]));
                    return out;
                }
                case "object": {
                    List<String> names = new ArrayList<>();
                    body.get("fields").fieldNames().forEachRemaining(names::add);
                    Map<String, Object> fields = new LinkedHashMap<>();
                    ordered(names).forEach(name -> fields.put(name, value(body.get("fields").get(name))));
                    return CanonicalObject.of(body.get("type").asText(), fields);
                }
                default:
                    throw new AssertionError("unknown tag " + only.getKey());
            }
        }

        private Object integer(BigInteger n) {
            if (n.bitLength() < 32 && variant) {
                return n.intValue();
            }
            return n.bitLength() < 64 ? (Object) n.longValue() : n;
        }

        private <T> List<T> ordered(List<T> items) {
            if (variant) {
                List<T> reversed = new ArrayList<>(items);
                Collections.reverse(reversed);
                return reversed;
            }
            return items;
        }
    }

    @Test
    void nativeValuesBuilderCoversEveryTag() {
        Iterator<JsonNode> all = cases().iterator();
        Set<String> tags = new HashSet<>();
        while (all.hasNext()) {
            JsonNode c = all.next();
            if (c.get("kind").asText().equals("args_digest")) {
                collectTags(c.get("args"), tags);
                collectTags(c.get("kwargs"), tags);
            }
        }
        assertTrue(tags.containsAll(List.of("int", "float", "str", "bytes", "list", "tuple", "dict", "set", "object")), tags.toString());
    }

    private static void collectTags(JsonNode node, Set<String> tags) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                tags.add(e.getKey());
                collectTags(e.getValue(), tags);
            });
        } else if (node.isArray()) {
            node.forEach(child -> collectTags(child, tags));
        }
    }
}
