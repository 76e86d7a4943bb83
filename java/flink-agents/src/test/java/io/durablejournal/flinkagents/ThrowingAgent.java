package io.durablejournal.flinkagents;

import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.context.RunnerContext;

/** A Flink Agents agent whose one action answers {@code "ok <input>"}, or throws for the input {@value #BOOM}. */
public class ThrowingAgent extends Agent {
    static final String BOOM = "boom";

    /** Its actions, added as every supported Flink Agents version takes them (no {@code @Action}: its form differs). */
    public ThrowingAgent() {
        AgentActions.add(this, "answer", InputEvent.EVENT_TYPE);
    }

    public static void answer(Event event, RunnerContext ctx) {
        String input = (String) InputEvent.fromEvent(event).getInput();
        if (BOOM.equals(input)) {
            throw new IllegalStateException("the action failed on " + input);
        }
        ctx.sendEvent(new OutputEvent("ok " + input));
    }
}
