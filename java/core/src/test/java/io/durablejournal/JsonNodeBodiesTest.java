package io.durablejournal;

import static io.durablejournal.TestCalls.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.durablejournal.TestCalls.CountingPersister;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Bodies given to an ActionState as Jackson trees: they come back with the values they were set
 * with, and one the journal would refuse is refused by the setter, with the journal's own error.
 */
class JsonNodeBodiesTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** {@code {"@class":"Event","zero":-0.0,"zeros":[-0.0,0.0],"float":-0.0f}} as a tree. */
    private static ObjectNode negativeZeros() {
        ObjectNode event = NODES.objectNode();
        event.put("@class", "Event");
        event.put("zero", -0.0d);
        event.putArray("zeros").add(-0.0d).add(0.0d);
        event.put("float", -0.0f);
        return event;
    }

    private static void assertNegativeZeros(JsonNode event, String where) {
        assertEquals("{\"@class\":\"Event\",\"zero\":-0.0,\"zeros\":[-0.0,0.0],\"float\":-0.0}", event.toString(), where);
        assertNegativeZero(event.get("zero"), where + ": zero");
        assertNegativeZero(event.get("zeros").get(0), where + ": zeros[0]");
        assertEquals(0, Double.compare(0.0d, event.get("zeros").get(1).doubleValue()), where + ": zeros[1] stays positive");
        assertNegativeZero(event.get("float"), where + ": float");
    }

    private static void assertNegativeZero(JsonNode number, String where) {
        assertTrue(number.isNumber(), where);
        assertEquals(0, Double.compare(-0.0d, number.doubleValue()), where + " is -0.0, not " + number);
    }

    private static ActionState everywhere(JsonNode body) {
        ActionState state = new ActionState();
        state.setTaskEvent(body);
        state.addOutputEvent(body);
        state.addSensoryMemoryUpdate(body);
        state.addShortTermMemoryUpdate(body);
        return state;
    }

    private static void assertEverywhere(ActionState state, String how) {
        assertNegativeZeros(state.getTaskEvent(), how + ", taskEvent");
        assertNegativeZeros(state.getOutputEvents().get(0), how + ", outputEvents");
        assertNegativeZeros(state.getSensoryMemoryUpdates().get(0), how + ", sensoryMemoryUpdates");
        assertNegativeZeros(state.getShortTermMemoryUpdates().get(0), how + ", shortTermMemoryUpdates");
    }

    @Test
    void aNegativeZeroSetAsATreeComesBackAsANegativeZero() {
        ActionState state = everywhere(negativeZeros());
        assertEverywhere(state, "set");
        assertEverywhere(ActionStateSerde.deserialize(ActionStateSerde.serialize(state)), "written and read");
    }

    @Test
    void aNegativeZeroComesBackThroughAContext() {
        CountingPersister persister = new CountingPersister();
        try (DurableExecutionContext context = new DurableExecutionContext(everywhere(negativeZeros()), persister)) {
            context.recordCallCompletion("tool-call:a", json("1"), null);
            assertEverywhere(persister.last(), "persisted by the journal");
            assertEverywhere(context.getActionState(), "the journal's snapshot");
        }
    }

    @Test
    void otherNumbersKeepTheirExactValue() {
        ActionState state = new ActionState();
        String numbers = "[1e400,2.50,-1E-400,18446744073709551616,-0,0.0,-12]";
        state.setTaskEvent(JsonBodies.tree(numbers));
        assertEquals("[1E+400,2.50,-1E-400,18446744073709551616,0,0.0,-12]", state.getTaskEvent().toString(),
                "decimals keep their scale and size; an integer -0 has no sign to keep");
        assertEquals(0, Double.compare(-0.0d, JsonBodies.tree("-0e5").doubleValue()), "a negative zero in any spelling");
    }

    @Test
    void aDoubleSetAsATreeComesBackAsTheDoubleJacksonsReaderGives() throws Exception {
        ObjectNode event = NODES.objectNode();
        event.put("@class", "Event");
        event.put("price", 1.5d);
        event.putArray("doubles").add(0.1d).add(-2.25e-5d).add(1e10d).add(0.30000000000000004d);
        String text = event.toString();
        ActionState state = everywhere(event);
        CountingPersister persister = new CountingPersister();
        try (DurableExecutionContext context = new DurableExecutionContext(state, persister)) {
            context.recordCallCompletion("tool-call:a", json("1"), null);
            for (ActionState got : List.of(state, ActionStateSerde.deserialize(ActionStateSerde.serialize(state)),
                    persister.last(), context.getActionState())) {
                for (JsonNode body : List.of(got.getTaskEvent(), got.getOutputEvents().get(0),
                        got.getSensoryMemoryUpdates().get(0), got.getShortTermMemoryUpdates().get(0))) {
                    assertEquals(event, body, "the tree it was set with");
                    assertEquals(new ObjectMapper().readTree(text), body, "what Jackson's own reader makes of " + text);
                    assertTrue(body.get("price").isDouble(), body.get("price").getNodeType() + " " + body.get("price").getClass());
                }
            }
        }
        assertTrue(JsonBodies.tree("2.50").isBigDecimal(), "a decimal that is not a double's own text stays exact");
        assertTrue(JsonBodies.tree("0.1000000000000000000001").isBigDecimal());
        assertTrue(JsonBodies.tree("1e10").isBigDecimal(), "Java writes that double 1.0E10");
    }

    /** {@code [[[...]]]}, {@code depth} arrays deep. */
    private static JsonNode nested(int depth) {
        return TestCalls.deepArray(depth);
    }

    @Test
    void aBodyNestedAsDeepAsItsPlaceAllowsIsTakenAndOpensAContext() {
        ActionState state = new ActionState();
        state.setTaskEvent(nested(999));
        state.addOutputEvent(nested(998));
        state.addSensoryMemoryUpdate(nested(998));
        state.addShortTermMemoryUpdate(nested(998));
        CountingPersister persister = new CountingPersister();
        try (DurableExecutionContext context = new DurableExecutionContext(state, persister)) {
            context.recordCallCompletion("tool-call:a", json("1"), null);
            assertEquals(state.getTaskEventJson(), persister.last().getTaskEventJson());
            assertEquals(state.getOutputEventsJson(), persister.last().getOutputEventsJson());
        }
    }

    @Test
    void aBodyDeeperThanItsPlaceAllowsIsRefusedByTheSetterWithTheJournalsError() {
        // One level too deep for the place, where Jackson still writes it: the native reader refuses it.
        assertRefusedAsTooDeep(state -> state.setTaskEvent(nested(1000)), 999);
        assertRefusedAsTooDeep(state -> state.addOutputEvent(nested(999)), 998);
        assertRefusedAsTooDeep(state -> state.addSensoryMemoryUpdate(nested(999)), 998);
        assertRefusedAsTooDeep(state -> state.addShortTermMemoryUpdate(nested(999)), 998);
        // Far deeper than any record nests: Jackson's writer stops there, with the same refusal.
        assertRefusedAsTooDeep(state -> state.setTaskEvent(nested(5000)), 999);
        assertRefusedAsTooDeep(state -> state.addOutputEvent(nested(5000)), 998);
    }

    private static void assertRefusedAsTooDeep(Consumer<ActionState> set, int limit) {
        ActionState state = new ActionState();
        state.addCallResult(new CallResult("tool-call:recorded", json("1"), null));
        ActionState before = ActionStateSerde.deserialize(ActionStateSerde.serialize(state));
        JournalException refused = assertThrows(JournalException.class, () -> set.accept(state));
        assertEquals(JournalException.Code.MALFORMED_JSON, refused.getCode());
        assertTrue(refused.getMessage().contains("a JSON body nests deeper than " + limit + " levels (an ActionState may nest at most 1000"),
                refused.getMessage());
        assertEquals(before, state, "the refused body is not in the record");
    }

    @Test
    void aRawValueNodeThatIsNotJsonIsRefusedByTheSetter() {
        ObjectNode event = NODES.objectNode();
        event.putRawValue("raw", new RawValue("{not json"));
        ActionState state = new ActionState();
        JournalException refused = assertThrows(JournalException.class, () -> state.addOutputEvent(event));
        assertEquals(JournalException.Code.MALFORMED_JSON, refused.getCode());
        assertEquals(List.of(), state.getOutputEventsJson());
    }
}
