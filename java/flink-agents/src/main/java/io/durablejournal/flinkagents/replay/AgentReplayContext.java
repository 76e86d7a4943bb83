package io.durablejournal.flinkagents.replay;

import io.durablejournal.flink.replay.ReplayRunnerContext;
import io.durablejournal.flink.replay.ReplayStop;
import io.durablejournal.flinkagents.CoreCallables;
import io.durablejournal.flinkagents.Patches;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.configuration.ReadableConfiguration;
import org.apache.flink.agents.api.context.DurableCallable;
import org.apache.flink.agents.api.context.MemoryObject;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.api.memory.BaseLongTermMemory;
import org.apache.flink.agents.api.metrics.FlinkAgentsMetricGroup;
import org.apache.flink.agents.api.resource.Resource;
import org.apache.flink.agents.api.resource.ResourceType;
import org.apache.flink.agents.plan.AgentPlan;

/**
 * The runner context a candidate's Java action runs on in a replay: its durable calls go to a
 * {@link ReplayRunnerContext} over the recorded calls (the native journal decides which recorded
 * slot replays; no body runs), the events it sends are collected, its memory is the rebuilt one
 * ({@link ReplayMemory}), its configuration the candidate plan's. What a replay cannot give
 * without reaching outside (long-term memory, resources without a replacement, metrics) ends the
 * action there, and {@link #unavailable} says what.
 */
final class AgentReplayContext implements RunnerContext, Patches.PatchedContext {
    private final AgentPlan plan;
    private final String actionName;
    private final ReplayRunnerContext calls;
    private final ReplayMemory memory;
    private final Map<String, Resource> resources;
    final List<Event> sent = new ArrayList<>();
    /** What the action asked for that a replay cannot give, or null. */
    String unavailable;

    AgentReplayContext(AgentPlan plan, String actionName, ReplayRunnerContext calls, ReplayMemory memory,
            Map<String, Resource> resources) {
        this.plan = plan;
        this.actionName = actionName;
        this.calls = calls;
        this.memory = memory;
        this.resources = resources;
    }

    /** The key a replacement resource is given under ({@link AgentReplayer#withResource}). */
    static String resourceKey(String name, ResourceType type) {
        return type + ":" + name;
    }

    private ReplayStop unavailable(String what) {
        unavailable = what + " is not available in a replay";
        return new ReplayStop(unavailable);
    }

    @Override
    public <T> T durableExecute(DurableCallable<T> callable) throws Exception {
        return calls.durableExecute(CoreCallables.of(callable));
    }

    @Override
    public <T> T durableExecuteAsync(DurableCallable<T> callable) throws Exception {
        return calls.durableExecuteAsync(CoreCallables.of(callable));
    }

    @Override
    public boolean patched(String changeId) {
        return calls.patched(changeId);
    }

    @Override
    public void sendEvent(Event event) {
        sent.add(Objects.requireNonNull(event, "event"));
    }

    @Override
    public MemoryObject getSensoryMemory() {
        return memory.sensory();
    }

    @Override
    public MemoryObject getShortTermMemory() {
        return memory.shortTerm();
    }

    @Override
    public BaseLongTermMemory getLongTermMemory() {
        throw unavailable("long-term memory");
    }

    @Override
    public FlinkAgentsMetricGroup getAgentMetricGroup() {
        throw unavailable("the agent metric group");
    }

    @Override
    public FlinkAgentsMetricGroup getActionMetricGroup() {
        throw unavailable("the action metric group");
    }

    @Override
    public Resource getResource(String name, ResourceType type) {
        Resource replacement = resources.get(resourceKey(name, type));
        if (replacement == null) {
            throw unavailable("resource " + name + " (" + type + ", no replacement given)");
        }
        return replacement;
    }

    @Override
    public ReadableConfiguration getConfig() {
        return plan.getConfig();
    }

    @Override
    public Map<String, Object> getActionConfig() {
        return plan.getActionConfig(actionName);
    }

    @Override
    public Object getActionConfigValue(String key) {
        return plan.getActionConfigValue(actionName, key);
    }

    @Override
    public void close() {}
}
