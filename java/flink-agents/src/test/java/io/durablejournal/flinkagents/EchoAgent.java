package io.durablejournal.flinkagents;

import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * Equal events, the case that shares one store entry when events are identified by their content
 * (apache/flink-agents#1084): {@link #fanOut} sends two equal {@value #ECHO_EVENT} events for each
 * input; {@link #echo} makes one durable call per event, which counts its runs, and outputs the
 * count it got. Each input yields two outputs; when the two echoes share an entry, the second
 * re-emits the first's output instead of running.
 */
public class EchoAgent extends Agent {
    public static final String ECHO_EVENT = "echo_request";

    /** Its actions, added as every supported Flink Agents version takes them (no {@code @Action}: its form differs). */
    public EchoAgent() {
        AgentActions.add(this, "fanOut", InputEvent.EVENT_TYPE);
        AgentActions.add(this, "echo", ECHO_EVENT);
    }

    public static void fanOut(Event event, RunnerContext ctx) {
        String text = (String) InputEvent.fromEvent(event).getInput();
        for (int i = 0; i < 2; i++) {
            Event echo = new Event(ECHO_EVENT);
            echo.setAttr("text", text);
            ctx.sendEvent(echo);
        }
    }

    public static void echo(Event event, RunnerContext ctx) throws Exception {
        JournalRun run = JournalRun.of(ctx.getConfig().getStr(JournalSemanticsAgent.RUN_ID, null));
        String text = (String) event.getAttr("text");
        Integer count = ctx.durableExecute(AgentCall.of("count", Integer.class, () -> {
            run.ran("count", null);
            return run.runs().get("count");
        }));
        run.crashInSecondEcho(count);
        ctx.sendEvent(new OutputEvent(text + " #" + count));
    }
}
