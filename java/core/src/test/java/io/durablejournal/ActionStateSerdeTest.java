package io.durablejournal;

import static io.durablejournal.TestCalls.json;
import static io.durablejournal.ExactRecords.NUMBERS;
import static io.durablejournal.ExactRecords.nested;
import static io.durablejournal.ExactRecords.text;
import static io.durablejournal.ExactRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ActionStateSerdeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The shape Flink Agents' ActionStateSerde writes: argsDigest, events with @class. */
    private static final String FLINK_AGENTS_RECORD = "{"
            + "\"taskEvent\":{\"@class\":\"org.apache.flink.agents.api.InputEvent\",\"id\":\"5f0c\",\"attributes\":{},\"input\":\"hi\"},"
            + "\"sensoryMemoryUpdates\":[],"
            + "\"shortTermMemoryUpdates\":[{\"path\":\"count\",\"value\":1}],"
            + "\"outputEvents\":[{\"@class\":\"org.apache.flink.agents.api.OutputEvent\",\"output\":\"bye\"}],"
            + "\"callResults\":["
            + "{\"functionId\":\"mod.fn\",\"argsDigest\":\"abc\",\"resultPayload\":\"MQ==\",\"exceptionPayload\":null},"
            + "{\"functionId\":\"mod.g\",\"argsDigest\":\"\",\"resultPayload\":null,\"exceptionPayload\":\"e30=\"},"
            + "{\"functionId\":\"chat\",\"argsDigest\":\"\",\"status\":\"PENDING\",\"resultPayload\":null,\"exceptionPayload\":null,\"success\":false,\"newerField\":[1]}"
            + "],"
            + "\"completed\":false,\"futureTopLevel\":{\"x\":1}}";

    @Test
    void readsFlinkAgentsRecordsWithAndWithoutStatus() {
        ActionState state = ActionStateSerde.deserialize(json(FLINK_AGENTS_RECORD));
        List<CallResult> slots = state.getCallResults();
        assertEquals(3, slots.size());
        assertTrue(slots.get(0).isSuccess());
        assertArrayEquals(json("1"), slots.get(0).getResultPayload());
        assertTrue(slots.get(1).isFailure(), "legacy slot with an exception payload is FAILED");
        assertTrue(slots.get(2).isPending());
        assertEquals("org.apache.flink.agents.api.InputEvent", state.getTaskEvent().get("@class").asText());
        assertEquals("bye", state.getOutputEvents().get(0).get("output").asText());
        assertEquals(1, state.getShortTermMemoryUpdates().get(0).get("value").asInt());
    }

    @Test
    void unknownTopLevelFieldsSurviveARewrite() throws Exception {
        ActionState state = ActionStateSerde.deserialize(json(FLINK_AGENTS_RECORD));
        ActionState again = ActionStateSerde.deserialize(ActionStateSerde.serialize(state));
        assertEquals(state, again);
        assertEquals(1, JSON.readTree(ActionStateSerde.serialize(again)).get("futureTopLevel").get("x").asInt());
    }

    @Test
    void roundTripsPendingFailedNullPayloadAndMultiByteIds() {
        ActionState state = new ActionState();
        state.addCallResult(CallResult.pending("tool-call:😀"));
        state.addCallResult(new CallResult("工具.调用::0123456789abcdef", null, json("{\"exceptionClass\":\"x\",\"message\":\"m\"}")));
        state.addCallResult(new CallResult("chat", null, null));
        state.addCallResult(new CallResult("𝔘𝔫𝔦𝔠𝔬𝔡𝔢", new byte[] {0, -1, 127, -128}, null));
        state.addOutputEvent(JSON.createObjectNode().put("@class", "E").put("v", "ü"));
        ActionState again = ActionStateSerde.deserialize(ActionStateSerde.serialize(state));
        assertEquals(state, again);
        assertNull(again.getCallResults().get(2).getResultPayload());
        assertTrue(again.getCallResults().get(2).isSuccess());
    }

    @Test
    void completedRecordRoundTripsWithoutJournal() {
        ActionState state = new ActionState();
        state.addCallResult(new CallResult("a", null, null));
        state.markCompleted();
        ActionState again = ActionStateSerde.deserialize(ActionStateSerde.serialize(state));
        assertTrue(again.isCompleted());
        assertEquals(List.of(), again.getCallResults());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "[]", "null", "{\"callResults\":[{\"functionId\":1}]}",
            "{\"callResults\":[{\"functionId\":\"a\",\"status\":\"MAYBE\"}]}",
            "{\"callResults\":[{\"functionId\":\"a\",\"resultPayload\":\"***\"}]}"})
    void malformedJsonIsAClearError(String bad) {
        JournalException e = assertThrows(JournalException.class, () -> ActionStateSerde.deserialize(json(bad)));
        assertEquals(JournalException.Code.MALFORMED_JSON, e.getCode());
        assertTrue(e.getMessage().startsWith("malformed ActionState JSON"), e.getMessage());
    }

    @Test
    void invalidUtf8IsAClearError() {
        byte[] bad = {'{', '"', 'c', (byte) 0xff, '"', ':', '1', '}'};
        assertEquals(JournalException.Code.MALFORMED_JSON,
                assertThrows(JournalException.class, () -> ActionStateSerde.deserialize(bad)).getCode());
    }

    @Test
    void nullIsRefused() {
        assertThrows(NullPointerException.class, () -> ActionStateSerde.deserialize(null));
        assertThrows(NullPointerException.class, () -> ActionStateSerde.serialize(null));
    }

    private static String roundTrip(String json) {
        return text(ActionStateSerde.serialize(ActionStateSerde.deserialize(utf8(json))));
    }

    @Test
    void everyBodyNumberStringAndKeyOrderComesBackExactly() {
        String record = ExactRecords.record();
        assertEquals(record, roundTrip(record));
        ActionState state = ActionStateSerde.deserialize(utf8(record));
        assertEquals("{\"path\":\"n\",\"value\":" + NUMBERS + "}", state.getSensoryMemoryUpdatesJson().get(0));
        assertEquals(NUMBERS, state.getOtherFieldsJson().get("subagentResultEvents"));
        assertEquals("-0.0", state.getOtherFieldsJson().get("\uDE00"), "a field named by a lone surrogate");
    }

    @Test
    void treesHoldNumbersExactlyAsBigDecimalsAndBigIntegers() {
        ActionState state = ActionStateSerde.deserialize(utf8(ExactRecords.record()));
        JsonNode input = state.getTaskEvent().get("input");
        assertEquals(new BigDecimal("0.12073605139050847"), input.get(0).decimalValue());
        assertEquals(new BigInteger("18446744073709551616"), input.get(1).bigIntegerValue());
        assertEquals(new BigDecimal("1e400"), input.get(3).decimalValue());
        assertEquals("2.50", input.get(7).decimalValue().toPlainString());
        assertEquals("cut \uD83D", state.getTaskEvent().get("text").asText());
    }

    @Test
    void aTreeWithALoneSurrogateIsWrittenWithItsEscape() {
        ActionState state = new ActionState();
        state.setTaskEvent(JsonNodeFactory.instance.objectNode().put("text", "cut \uD83D").put("n", new BigDecimal("1e400")));
        state.addOutputEvent(JsonNodeFactory.instance.textNode("\uDE00"));
        String json = text(ActionStateSerde.serialize(state));
        assertTrue(json.contains("{\"text\":\"cut \\uD83D\",\"n\":1E+400}"), json);
        ActionState again = ActionStateSerde.deserialize(utf8(json));
        assertEquals(state, again);
        assertEquals("\uDE00", again.getOutputEvents().get(0).asText());
    }

    @Test
    void aNullFunctionIdLoadsAndIsWrittenBackAsNull() {
        String record = "{\"sensoryMemoryUpdates\":[],\"shortTermMemoryUpdates\":[],\"outputEvents\":[],\"callResults\":["
                + ExactRecords.slot("null", "\"\"", "SUCCEEDED", "\"MQ==\"", "null") + "],\"completed\":false}";
        ActionState state = ActionStateSerde.deserialize(utf8(record));
        assertNull(state.getCallResults().get(0).getFunctionId());
        assertTrue(state.getCallResults().get(0).isSuccess());
        assertEquals(record, text(ActionStateSerde.serialize(state)));
    }

    @Test
    void argsDigestIsKeptAsReadAndEmptyWhereThereWasNone() {
        ActionState state = ActionStateSerde.deserialize(json(FLINK_AGENTS_RECORD));
        List<CallResult> slots = state.getCallResults();
        assertEquals(List.of("abc", "", ""), List.of(slots.get(0).getArgsDigest(), slots.get(1).getArgsDigest(), slots.get(2).getArgsDigest()));
        ActionState ours = new ActionState();
        ours.addCallResult(new CallResult("a", null, null));
        ours.addCallResult(CallResult.pending("b"));
        String json = text(ActionStateSerde.serialize(ours));
        assertTrue(json.contains("{\"functionId\":\"a\",\"argsDigest\":\"\",\"status\":\"SUCCEEDED\""), json);
        assertTrue(json.contains("{\"functionId\":\"b\",\"argsDigest\":\"\",\"status\":\"PENDING\""), json);
        String nullDigest = "{\"callResults\":[{\"functionId\":\"a\",\"argsDigest\":null,\"status\":\"PENDING\"}]}";
        CallResult read = ActionStateSerde.deserialize(utf8(nullDigest)).getCallResults().get(0);
        assertNull(read.getArgsDigest());
        assertTrue(roundTrip(nullDigest).contains("\"argsDigest\":null"));
    }

    @Test
    void nestingUpToJacksonsLimitLoadsAndDeeperIsRefusedClearly() {
        // The record is level 1: a task event of 999 levels makes a document of 1000.
        String atLimit = "{\"taskEvent\":" + nested(999) + ",\"sensoryMemoryUpdates\":[],\"shortTermMemoryUpdates\":[],"
                + "\"outputEvents\":[" + nested(998) + "],\"callResults\":[],\"completed\":false}";
        assertEquals(atLimit, roundTrip(atLimit));
        for (String tooDeep : new String[] {"{\"taskEvent\":" + nested(1000) + "}", "{\"outputEvents\":[" + nested(999) + "]}",
                "{\"taskEvent\":" + nested(200_000) + "}"}) {
            JournalException e = assertThrows(JournalException.class, () -> ActionStateSerde.deserialize(utf8(tooDeep)));
            assertEquals(JournalException.Code.MALFORMED_JSON, e.getCode());
            assertTrue(e.getMessage().contains("nests deeper than") && e.getMessage().contains("1000"), e.getMessage());
        }
    }
}
