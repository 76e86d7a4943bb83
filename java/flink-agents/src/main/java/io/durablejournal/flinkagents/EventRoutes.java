package io.durablejournal.flinkagents;

import java.util.List;
import java.util.function.Function;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.actions.Action;

/**
 * Which actions of a plan an event triggers, decided as the Flink Agents version on the classpath
 * routes events in its operator (0.3.1: by event type; main: by type and condition expressions),
 * for a replay to ask the same question of a candidate plan; and which recorded events the
 * operator emitted itself.
 */
public final class EventRoutes {
    private EventRoutes() {}

    /**
     * Whether {@code event} is one the operator emits itself at an action's end to observe its
     * memory (Flink Agents main's memory events), not one the action sent.
     */
    public static boolean isMemoryObservation(Event event) {
        return FlinkAgentsCompatibility.shim().isMemoryObservation(event.getType());
    }

    /** The plan's router: for an event, the actions it triggers, in the operator's order. */
    public static Function<Event, List<Action>> of(AgentPlan plan) {
        return FlinkAgentsCompatibility.shim().router(plan);
    }
}
