package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flinkagents.demo.SupportRequest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.context.MemoryUpdate;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateSerde;
import org.apache.flink.agents.runtime.actionstate.CallResult;
import org.junit.jupiter.api.Test;

/** Flink Agents' ActionState through the native store and back: the JSON Flink Agents writes is unchanged. */
class ActionStatesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A put, then a get, as the operator makes them (a fresh event object, as after a restore). */
    private static ActionState roundTrip(ActionState state) {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            Action action = Fixtures.draft(Fixtures.plan());
            store.put("k", 1, action, state.getTaskEvent(), state);
            return store.get("k", 1, action, state.getTaskEvent());
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everyPartOfAFlinkAgentsStateComesBackAsFlinkAgentsWroteIt() throws Exception {
        Event input = Fixtures.input(3);
        ActionState state = new ActionState(input);
        state.addCallResult(new CallResult("chat", "", utf8("\"a draft \\uD83D cut mid-emoji\"")));
        state.addCallResult(new CallResult("module.search", "3f9a0c1d2e4b5a69", utf8("{\"hits\":[0.12073605139050847,18446744073709551616]}")));
        state.addCallResult(new CallResult("tool-call:nothing", "", null));
        state.addCallResult(new CallResult("tool-call:failed", "", null,
                utf8("{\"exceptionClass\":\"java.io.IOException\",\"message\":\"down\"}")));
        state.addCallResult(CallResult.pending("tool-call:reconcile-me", ""));
        state.addShortTermMemoryUpdate(new MemoryUpdate("user.name", "Ada"));
        Event drafted = new Event("support_draft");
        drafted.setAttr("request", SupportRequest.number(3));
        drafted.setAttr("scores", Arrays.asList(0.1, 1e300, -0.0));
        state.addEvent(drafted);
        state.addEvent(new OutputEvent("answer"));

        ActionState back = roundTrip(state);

        assertEquals(JSON.readTree(ActionStateSerde.serialize(state)), JSON.readTree(ActionStateSerde.serialize(back)));
        assertEquals("3f9a0c1d2e4b5a69", back.getCallResults().get(1).getArgsDigest(), "a Python call's digest is kept");
        assertEquals("", back.getCallResults().get(0).getArgsDigest(), "a Java call's empty digest is kept");
        assertEquals("Ada", back.getShortTermMemoryUpdates().get(0).getValue());

        // Completing drops the call results (Flink Agents' markCompleted): the stored outputs remain.
        state.markCompleted();
        ActionState completed = roundTrip(state);
        assertEquals(JSON.readTree(ActionStateSerde.serialize(state)), JSON.readTree(ActionStateSerde.serialize(completed)));
        assertEquals(2, completed.getOutputEvents().size());
    }
}
