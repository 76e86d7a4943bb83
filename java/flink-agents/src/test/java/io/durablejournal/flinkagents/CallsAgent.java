package io.durablejournal.flinkagents;

import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * A Flink Agents agent whose one action makes as many durable calls as its input says, each
 * returning {@value #RESULT_CHARS} characters, and outputs the number of calls it made.
 */
public class CallsAgent extends Agent {
    static final int RESULT_CHARS = 1000;

    /** Its actions, added as every supported Flink Agents version takes them (no {@code @Action}: its form differs). */
    public CallsAgent() {
        AgentActions.add(this, "calls", InputEvent.EVENT_TYPE);
    }

    public static void calls(Event event, RunnerContext ctx) throws Exception {
        int n = (Integer) InputEvent.fromEvent(event).getInput();
        for (int i = 0; i < n; i++) {
            ctx.durableExecute(AgentCall.of("tool-call:" + i, CallsAgent::result));
        }
        ctx.sendEvent(new OutputEvent(n));
    }

    /** The result of every call: {@value #RESULT_CHARS} letters. */
    private static String result() {
        StringBuilder result = new StringBuilder(RESULT_CHARS);
        while (result.length() < RESULT_CHARS) {
            result.append((char) ('a' + result.length() % 26));
        }
        return result.toString();
    }
}
