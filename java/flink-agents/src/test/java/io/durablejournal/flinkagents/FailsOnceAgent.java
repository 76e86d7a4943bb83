package io.durablejournal.flinkagents;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * A Flink Agents agent whose one action answers {@code "ok <input>"}, except that its first
 * attempt on an input starting with {@value #FAILS_ONCE} throws (a transient failure, as of a
 * service that was briefly down). It counts the attempts per input, in this JVM.
 */
public class FailsOnceAgent extends Agent {
    static final String FAILS_ONCE = "fails-once";
    static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();

    /** Its actions, added as every supported Flink Agents version takes them (no {@code @Action}: its form differs). */
    public FailsOnceAgent() {
        AgentActions.add(this, "answer", InputEvent.EVENT_TYPE);
    }

    public static void answer(Event event, RunnerContext ctx) {
        String input = (String) InputEvent.fromEvent(event).getInput();
        int attempt = ATTEMPTS.computeIfAbsent(input, i -> new AtomicInteger()).incrementAndGet();
        if (input.startsWith(FAILS_ONCE) && attempt == 1) {
            throw new IllegalStateException("the action failed on " + input);
        }
        ctx.sendEvent(new OutputEvent("ok " + input));
    }
}
