package io.durablejournal.compat;

import static io.durablejournal.ExactRecords.text;
import static io.durablejournal.ExactRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.CallResult;
import io.durablejournal.ExactRecords;
import io.durablejournal.JournalException;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.context.MemoryUpdate;
import org.junit.jupiter.api.Test;

/**
 * ActionStates exchanged with the real Apache Flink Agents 0.3.1 runtime classes (its {@code
 * ActionState}, {@code CallResult} and {@code ActionStateSerde}): what Flink Agents writes loads
 * here with every field equal, and what this library writes loads there with every field equal,
 * including {@code argsDigest}, null function ids, exact numbers in events and deep nesting.
 */
class FlinkAgentsStateCompatTest {
    private static final BigInteger TWO_TO_64 = new BigInteger("18446744073709551616");
    private static final BigInteger THIRTY_DIGITS = new BigInteger("123456789012345678901234567890");

    private static org.apache.flink.agents.runtime.actionstate.CallResult flinkSlot(
            String functionId, String argsDigest, byte[] result, byte[] exception) {
        return new org.apache.flink.agents.runtime.actionstate.CallResult(functionId, argsDigest, result, exception);
    }

    private static byte[] flinkSerialize(org.apache.flink.agents.runtime.actionstate.ActionState state) {
        return org.apache.flink.agents.runtime.actionstate.ActionStateSerde.serialize(state);
    }

    private static org.apache.flink.agents.runtime.actionstate.ActionState flinkDeserialize(byte[] json) {
        return org.apache.flink.agents.runtime.actionstate.ActionStateSerde.deserialize(json);
    }

    /** Numbers a double or a default Jackson tree would change, and text cut mid-emoji. */
    private static Map<String, Object> exactInput() {
        Map<String, Object> input = new LinkedHashMap<>();
        input.put("double", 0.12073605139050847);
        input.put("notShortest", 2e23); // JDK 17 writes 1.9999999999999998E23
        input.put("negativeZero", -0.0);
        input.put("twoTo64", TWO_TO_64);
        input.put("thirtyDigits", THIRTY_DIGITS);
        input.put("cut", "emoji \uD83D");
        input.put("list", Arrays.asList(1, 2.5, "x"));
        return input;
    }

    /** A state as Flink Agents 0.3.1 builds it, with every kind of slot it writes. */
    private static org.apache.flink.agents.runtime.actionstate.ActionState flinkState() {
        org.apache.flink.agents.runtime.actionstate.ActionState state =
                new org.apache.flink.agents.runtime.actionstate.ActionState(new InputEvent(exactInput()));
        state.addSensoryMemoryUpdate(new MemoryUpdate("sensory.n", 0.12073605139050847));
        state.addShortTermMemoryUpdate(new MemoryUpdate("count", 3));
        state.addEvent(new OutputEvent(exactInput()));
        state.addCallResult(flinkSlot("tool-call:a", "", utf8("0.12073605139050847"), null));
        // 0.3.1 writes a null id for a callable whose getId() is null.
        state.addCallResult(flinkSlot(null, "", utf8("2"), null));
        state.addCallResult(flinkSlot("tool-call:\uD83D", null, null, utf8("{\"exceptionClass\":\"E\"}")));
        state.addCallResult(flinkSlot("py.search", "\uDE00", null, null));
        state.addCallResult(org.apache.flink.agents.runtime.actionstate.CallResult.pending("py.search::0123456789abcdef", "9f86d081884c7d65"));
        return state;
    }

    private static CallResult.Status statusOf(org.apache.flink.agents.runtime.actionstate.CallResult slot) {
        return slot.isPending() ? CallResult.Status.PENDING : slot.isFailure() ? CallResult.Status.FAILED : CallResult.Status.SUCCEEDED;
    }

    @Test
    void flinkAgentsStatesLoadHereWithEveryFieldEqual() throws IOException {
        org.apache.flink.agents.runtime.actionstate.ActionState flink = flinkState();
        byte[] written = flinkSerialize(flink);
        ActionState ours = ActionStateSerde.deserialize(written);

        List<org.apache.flink.agents.runtime.actionstate.CallResult> flinkSlots = flink.getCallResults();
        assertEquals(flinkSlots.size(), ours.getCallResults().size());
        for (int i = 0; i < flinkSlots.size(); i++) {
            org.apache.flink.agents.runtime.actionstate.CallResult expected = flinkSlots.get(i);
            CallResult actual = ours.getCallResults().get(i);
            assertEquals(expected.getFunctionId(), actual.getFunctionId(), "functionId of slot " + i);
            assertEquals(expected.getArgsDigest(), actual.getArgsDigest(), "argsDigest of slot " + i);
            assertEquals(statusOf(expected), actual.getStatus(), "status of slot " + i);
            assertArrayEquals(expected.getResultPayload(), actual.getResultPayload(), "result of slot " + i);
            assertArrayEquals(expected.getExceptionPayload(), actual.getExceptionPayload(), "exception of slot " + i);
        }
        assertNull(ours.getCallResults().get(1).getFunctionId());
        assertEquals(flink.isCompleted(), ours.isCompleted());

        // Every body is the very text Flink Agents wrote.
        Map<String, Object> bodies = topLevelBodies(written);
        assertEquals(bodies.get("taskEvent"), ours.getTaskEventJson());
        assertEquals(bodies.get("sensoryMemoryUpdates"), ours.getSensoryMemoryUpdatesJson());
        assertEquals(bodies.get("shortTermMemoryUpdates"), ours.getShortTermMemoryUpdatesJson());
        assertEquals(bodies.get("outputEvents"), ours.getOutputEventsJson());
        String event = ours.getTaskEventJson();
        for (String exact : new String[] {"0.12073605139050847", "1.9999999999999998E23", "-0.0", TWO_TO_64.toString(),
                THIRTY_DIGITS.toString(), "emoji \\uD83D"}) {
            assertTrue(event.contains(exact), exact + " in " + event);
        }
    }

    @Test
    void oursLoadInFlinkAgentsWithEveryFieldEqual() {
        byte[] flinkWritten = flinkSerialize(flinkState());
        byte[] oursWritten = ActionStateSerde.serialize(ActionStateSerde.deserialize(flinkWritten));
        org.apache.flink.agents.runtime.actionstate.ActionState viaUs = flinkDeserialize(oursWritten);
        org.apache.flink.agents.runtime.actionstate.ActionState direct = flinkDeserialize(flinkWritten);

        // Flink Agents' equals compares events (id, type, attributes), memory updates and every
        // CallResult field, argsDigest and status included.
        assertEquals(direct, viaUs);
        assertEquals(direct.getCallResults(), viaUs.getCallResults());
        @SuppressWarnings("unchecked")
        Map<String, Object> input = (Map<String, Object>) viaUs.getTaskEvent().getAttr("input");
        assertEquals(0.12073605139050847, input.get("double"));
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits((Double) input.get("negativeZero")));
        assertEquals(2e23, input.get("notShortest"));
        assertEquals(TWO_TO_64, input.get("twoTo64"));
        assertEquals(THIRTY_DIGITS, input.get("thirtyDigits"));
        assertEquals("emoji \uD83D", input.get("cut"));
        assertNull(viaUs.getCallResults().get(1).getFunctionId());
    }

    @Test
    void slotsThisLibraryWritesCarryTheEmptyDigestFlinkAgentsMatchesJavaCallsOn() {
        ActionState ours = new ActionState();
        ours.addCallResult(new CallResult("tool-call:send-email", utf8("\"message-id-42\""), null));
        ours.addCallResult(new CallResult("tool-call:charge", null, utf8("{\"exceptionClass\":\"E\",\"message\":\"m\"}")));
        ours.addCallResult(CallResult.pending("tool-call:refund"));
        org.apache.flink.agents.runtime.actionstate.ActionState flink = flinkDeserialize(ActionStateSerde.serialize(ours));
        List<org.apache.flink.agents.runtime.actionstate.CallResult> slots = flink.getCallResults();
        assertEquals(3, slots.size());
        for (int i = 0; i < slots.size(); i++) {
            CallResult expected = ours.getCallResults().get(i);
            // RunnerContextImpl 0.3.1 matches a Java DurableCallable on (getId(), "").
            assertTrue(slots.get(i).matches(expected.getFunctionId(), ""), "slot " + i);
            assertEquals(expected.getStatus(), statusOf(slots.get(i)));
            assertArrayEquals(expected.getResultPayload(), slots.get(i).getResultPayload());
            assertArrayEquals(expected.getExceptionPayload(), slots.get(i).getExceptionPayload());
        }
    }

    @Test
    void nestingToJacksonsLimitCrossesBothWaysAndDeeperIsRefusedByBoth() {
        // Record (1) > taskEvent (2) > attributes (3) > 997 lists: the 1000 levels Jackson allows.
        Object deep = 7;
        for (int i = 0; i < 997; i++) {
            deep = new ArrayList<>(List.of(deep));
        }
        org.apache.flink.agents.runtime.actionstate.ActionState flink =
                new org.apache.flink.agents.runtime.actionstate.ActionState(new InputEvent(deep));
        byte[] flinkWritten = flinkSerialize(flink);
        ActionState ours = ActionStateSerde.deserialize(flinkWritten);
        assertEquals(flinkDeserialize(flinkWritten), flinkDeserialize(ActionStateSerde.serialize(ours)));

        String oneLevelDeeper = text(flinkWritten).replace("\"input\":" + ExactRecords.nested(997), "\"input\":" + ExactRecords.nested(998));
        assertTrue(oneLevelDeeper.length() == flinkWritten.length + 2, "the input is 997 nested lists");
        byte[] tooDeep = utf8(oneLevelDeeper);
        JournalException refused = assertThrows(JournalException.class, () -> ActionStateSerde.deserialize(tooDeep));
        assertEquals(JournalException.Code.MALFORMED_JSON, refused.getCode());
        assertTrue(refused.getMessage().contains("1000"), refused.getMessage());
        RuntimeException flinkRefused = assertThrows(RuntimeException.class, () -> flinkDeserialize(tooDeep));
        assertTrue(String.valueOf(flinkRefused.getCause()).contains("nesting depth (1001)"), String.valueOf(flinkRefused.getCause()));
    }

    @Test
    void exactRecordsOfThisLibraryLoadInFlinkAgents() {
        // Flink Agents reads events by their @class and fails on a field it does not know, so the
        // record here has its event shapes and no unknown top-level field.
        String input = "{\"double\":0.12073605139050847,\"twoTo64\":18446744073709551616,\"negativeZero\":-0.0,\"cut\":\"emoji \\uD83D\"}";
        String record = "{\"taskEvent\":{\"@class\":\"org.apache.flink.agents.api.InputEvent\",\"id\":\"5f0c39d4-8d0e-4c4e-9a47-1f2d3c4b5a69\","
                + "\"attributes\":{\"input\":" + input + "},\"type\":\"_input_event\"},"
                + "\"sensoryMemoryUpdates\":[],\"shortTermMemoryUpdates\":[],\"outputEvents\":[],\"callResults\":["
                + ExactRecords.slot("null", "\"\"", "SUCCEEDED", ExactRecords.base64("1"), "null")
                + "],\"completed\":false}";
        org.apache.flink.agents.runtime.actionstate.ActionState flink = flinkDeserialize(ActionStateSerde.serialize(ActionStateSerde.deserialize(utf8(record))));
        @SuppressWarnings("unchecked")
        Map<String, Object> attributes = (Map<String, Object>) flink.getTaskEvent().getAttr("input");
        assertEquals(0.12073605139050847, attributes.get("double"));
        assertEquals(TWO_TO_64, attributes.get("twoTo64"));
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits((Double) attributes.get("negativeZero")));
        assertEquals("emoji \uD83D", attributes.get("cut"));
        assertNull(flink.getCallResults().get(0).getFunctionId());
    }

    /**
     * The text of each top-level body of a record: a String for {@code taskEvent}, a list of
     * Strings for the lists. Sliced from the bytes, so a test compares exact text.
     */
    private static Map<String, Object> topLevelBodies(byte[] json) throws IOException {
        Map<String, Object> bodies = new LinkedHashMap<>();
        try (JsonParser parser = new JsonFactory().createParser(json)) {
            parser.nextToken();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (value == JsonToken.START_ARRAY) {
                    List<String> items = new ArrayList<>();
                    while (parser.nextToken() != JsonToken.END_ARRAY) {
                        items.add(slice(parser, json));
                    }
                    bodies.put(name, items);
                } else {
                    bodies.put(name, slice(parser, json));
                }
            }
        }
        return bodies;
    }

    private static String slice(JsonParser parser, byte[] json) throws IOException {
        int start = (int) parser.currentTokenLocation().getByteOffset();
        if (parser.currentToken().isStructStart()) {
            parser.skipChildren();
        } else {
            parser.finishToken();
        }
        int end = (int) parser.currentLocation().getByteOffset();
        return new String(json, start, end - start, java.nio.charset.StandardCharsets.UTF_8);
    }
}
