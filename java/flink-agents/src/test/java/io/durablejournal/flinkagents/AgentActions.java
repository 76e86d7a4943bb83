package io.durablejournal.flinkagents;

import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * Adds an agent's actions by method, as {@code Agent.addAction} does in every supported Flink
 * Agents version; the {@code @Action} annotation differs between them ({@code listenEventTypes}
 * in 0.3.1, {@code value} on main), so the test agents, compiled once for both, do not use it.
 */
final class AgentActions {
    private AgentActions() {}

    /** Adds the agent's {@code public static void method(Event, RunnerContext)} as an action triggered by {@code eventTypes}. */
    static void add(Agent agent, String method, String... eventTypes) {
        try {
            agent.addAction(eventTypes, agent.getClass().getMethod(method, Event.class, RunnerContext.class));
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(agent.getClass().getName() + " has no action method " + method, e);
        }
    }
}
