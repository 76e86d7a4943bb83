package io.durablejournal;

import static io.durablejournal.TestCalls.json;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ActionStateSerdeTest {
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
        assertEquals(1, ActionStateSerde.MAPPER.readTree(ActionStateSerde.serialize(again)).get("futureTopLevel").get("x").asInt());
    }

    @Test
    void roundTripsPendingFailedNullPayloadAndMultiByteIds() {
        ActionState state = new ActionState();
        state.addCallResult(CallResult.pending("tool-call:😀"));
        state.addCallResult(new CallResult("工具.调用::0123456789abcdef", null, json("{\"exceptionClass\":\"x\",\"message\":\"m\"}")));
        state.addCallResult(new CallResult("chat", null, null));
        state.addCallResult(new CallResult("𝔘𝔫𝔦𝔠𝔬𝔡𝔢", new byte[] {0, -1, 127, -128}, null));
        state.addOutputEvent(ActionStateSerde.MAPPER.createObjectNode().put("@class", "E").put("v", "ü"));
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
    @ValueSource(strings = {"", "{", "[]", "null", "{\"callResults\":[{\"status\":\"PENDING\"}]}",
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
}
