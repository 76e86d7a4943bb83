package io.durablejournal.flinkagents.replay;

import io.durablejournal.ActionState;
import io.durablejournal.CallResult;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.flink.replay.ActionReplay;
import io.durablejournal.flink.replay.RecordedValueStub;
import io.durablejournal.flink.replay.RestorePlan;
import io.durablejournal.flink.replay.ReplayReport;
import io.durablejournal.flink.replay.ReplayRunnerContext;
import io.durablejournal.flink.replay.ReplaySelection;
import io.durablejournal.flink.replay.ReplayStop;
import io.durablejournal.flinkagents.EventRoutes;
import io.durablejournal.flinkagents.PlanDigests;
import io.durablejournal.store.RetainedAction;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.resource.Resource;
import org.apache.flink.agents.api.resource.ResourceType;
import org.apache.flink.agents.plan.AgentConfiguration;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.JavaFunction;
import org.apache.flink.agents.plan.actions.Action;

/**
 * Replays the actions Flink Agents' operator recorded (under {@code DurableAgents}, with a file
 * store that retains completed actions) against a candidate agent plan, before it ships
 * (docs/replay.md, "Flink Agents actions"). For each selected retained action:
 * <ul>
 *   <li>the candidate's action of the recorded name, when the recorded event still triggers it
 *       (routed as the Flink Agents version's operator routes: {@link EventRoutes}), runs on the
 *       recorded event with a replay-only runner context: a durable call that the native journal
 *       matches with the recorded slot at its position replays the recorded outcome (value, null
 *       or the failure of its own class), nothing runs; a call the recording lacks is not run (the
 *       report names its id and position) unless a stub answers it; a divergence is reported with
 *       the recorded id and status and the candidate's id;</li>
 *   <li>its output events and memory updates are compared with the recorded ones
 *       ({@link ActionReplay#getCandidateOutputs}, {@link ActionReplay#getCandidateMemoryUpdates});</li>
 *   <li>the memory it reads is rebuilt from the retained actions of its key, in order, or the
 *       action is reported "memory not reconstructible" when that history is not whole
 *       ({@link ReplayMemory});</li>
 *   <li>an action of the recorded name that no longer listens to the recorded event is {@code
 *       not-triggered}; a candidate action the recorded event now triggers with nothing recorded
 *       under its name for that event is {@code newly-triggered} (not run); a recorded name the
 *       candidate has no action of is counted in {@link ReplayReport#getOtherActions}.</li>
 * </ul>
 * The store is read without its lock and no file of it changes; nothing is written anywhere.
 * Immutable; {@link #withStub} and {@link #withResource} return new replayers.
 */
public final class AgentReplayer {
    /** The outcomes a replay of Flink Agents actions can have: all of them. */
    private static final Set<ActionReplay.Outcome> OUTCOMES = Collections.unmodifiableSet(EnumSet.allOf(ActionReplay.Outcome.class));

    private final AgentPlan plan;
    private final String name;
    private final Map<String, Callable<?>> stubs;
    private final Map<String, Resource> resources;

    private AgentReplayer(AgentPlan plan, String name, Map<String, Callable<?>> stubs, Map<String, Resource> resources) {
        this.plan = Objects.requireNonNull(plan, "plan");
        this.name = Objects.requireNonNull(name, "name");
        this.stubs = Collections.unmodifiableMap(stubs);
        this.resources = Collections.unmodifiableMap(resources);
    }

    /** The candidate agent, planned with Flink Agents' default configuration. */
    public static AgentReplayer of(Agent agent) {
        Objects.requireNonNull(agent, "agent");
        try {
            return of(new AgentPlan(agent, new AgentConfiguration()), agent.getClass().getName());
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot plan agent " + agent.getClass().getName() + ": " + e.getMessage(), e);
        }
    }

    /** The candidate plan; {@code name} names it in the report. */
    public static AgentReplayer of(AgentPlan plan, String name) {
        return new AgentReplayer(plan, name, new LinkedHashMap<>(), new LinkedHashMap<>());
    }

    /**
     * Answers the durable call {@code callId}, when the recording has no slot for it, with what
     * {@code stub} returns (or throws), instead of stopping the action there. The real call never
     * runs in a replay.
     */
    public AgentReplayer withStub(String callId, Callable<?> stub) {
        Map<String, Callable<?>> more = new LinkedHashMap<>(stubs);
        more.put(Objects.requireNonNull(callId, "callId"), Objects.requireNonNull(stub, "stub"));
        return new AgentReplayer(plan, name, more, resources);
    }

    /**
     * Answers the durable call {@code callId}, when the recording has no slot for it, with {@code
     * json} read as the call's result class ({@code DurableCallable.getResultClass}), as a
     * recorded value of that JSON would replay: the shape the journal records the call's value in
     * (what {@code --stub} gives the command).
     *
     * @throws IllegalArgumentException when {@code json} is not one JSON value
     */
    public AgentReplayer withStubJson(String callId, String json) {
        return withStub(callId, RecordedValueStub.of(json));
    }

    /**
     * Gives the candidate's actions {@code resource} for {@code getResource(name, type)} (a
     * replay does not build the plan's resources, which may reach outside); without one, an
     * action that asks for a resource stops there, not replayable.
     */
    public AgentReplayer withResource(String resourceName, ResourceType type, Resource resource) {
        Map<String, Resource> more = new LinkedHashMap<>(resources);
        more.put(AgentReplayContext.resourceKey(resourceName, type), Objects.requireNonNull(resource, "resource"));
        return new AgentReplayer(plan, name, stubs, more);
    }

    /** The candidate plan's digest ({@link PlanDigests}), to compare with the recordings' {@link ActionReplay#getPlanDigest}. */
    public String planDigest() {
        return PlanDigests.of(plan);
    }

    /**
     * What a restore of the job with the candidate plan does to the journals in flight in the
     * file store in {@code storeDir} (its live entries not completed, written by Flink Agents'
     * operator under {@code DurableAgents}), under the job's divergence {@code policy}: per entry
     * {@code selection} takes, how many recorded calls replay, the first new call that will run,
     * and what the policy does at the first difference ({@link ActionReplay#getDetail}, in {@link
     * RestorePlan}'s words, as {@code JournalReplayer.planRestore} says them). Each entry's action
     * runs on its recorded event over its recorded calls as in {@link #replayStore}, its memory
     * rebuilt from the retained actions of its key (all of them completed before it); an entry
     * whose action the candidate no longer has is counted in {@link ReplayReport#getOtherActions},
     * one the recorded event no longer triggers is {@code not-triggered}. Nothing runs and nothing
     * is written.
     */
    public ReplayReport planRestore(Path storeDir, DivergencePolicy policy, ReplaySelection selection) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(selection, "selection");
        Map<String, List<RecordedAction>> byKey = new LinkedHashMap<>();
        for (RetainedAction action : RetainedAction.read(storeDir)) {
            byKey.computeIfAbsent(action.getKey(), k -> new ArrayList<>()).add(RecordedAction.of(action));
        }
        Function<Event, List<Action>> router = EventRoutes.of(plan);
        List<ActionReplay> plans = new ArrayList<>();
        Map<String, Integer> others = new TreeMap<>();
        for (RetainedAction entry : selection.apply(RetainedAction.readInFlight(storeDir))) {
            RecordedAction inFlight = RecordedAction.of(entry);
            Action action = plan.getActions().get(inFlight.name());
            if (action == null) {
                others.merge(inFlight.name(), 1, Integer::sum);
            } else {
                ActionReplay notRun = notRunnable(inFlight, router);
                plans.add(notRun != null ? notRun : replayOne(inFlight, action,
                        byKey.getOrDefault(inFlight.key(), Collections.emptyList()), policy));
            }
        }
        return new ReplayReport("agent " + name, plans, others, OUTCOMES);
    }

    /** Replays what the file store in {@code storeDir} retained that {@code selection} takes. */
    public ReplayReport replayStore(Path storeDir, ReplaySelection selection) {
        return replay(RetainedAction.read(storeDir), selection);
    }

    /**
     * Replays the actions of {@code retained} (one store's retained actions, oldest first: the
     * memory of each is rebuilt from those of its key) that {@code selection} takes.
     */
    public ReplayReport replay(List<RetainedAction> retained, ReplaySelection selection) {
        Objects.requireNonNull(selection, "selection");
        Map<String, List<RecordedAction>> byKey = new LinkedHashMap<>();
        Map<String, Set<String>> namesByEvent = new LinkedHashMap<>();
        Map<RetainedAction, RecordedAction> read = new LinkedHashMap<>();
        for (RetainedAction action : retained) {
            RecordedAction recorded = RecordedAction.of(action);
            read.put(action, recorded);
            byKey.computeIfAbsent(action.getKey(), k -> new ArrayList<>()).add(recorded);
            namesByEvent.computeIfAbsent(recorded.eventAddress(), e -> new LinkedHashSet<>()).add(action.getActionName());
        }
        Function<Event, List<Action>> router = EventRoutes.of(plan);
        List<RetainedAction> chosen = selection.apply(retained);
        Map<String, Integer> lastOfEvent = new LinkedHashMap<>();
        for (int i = 0; i < chosen.size(); i++) {
            lastOfEvent.put(read.get(chosen.get(i)).eventAddress(), i);
        }
        List<ActionReplay> replays = new ArrayList<>();
        Map<String, Integer> others = new TreeMap<>();
        for (int i = 0; i < chosen.size(); i++) {
            RecordedAction recorded = read.get(chosen.get(i));
            Action action = plan.getActions().get(recorded.name());
            Event event = recorded.event();
            if (action == null) {
                others.merge(recorded.name(), 1, Integer::sum);
            } else {
                ActionReplay notRun = notRunnable(recorded, router);
                replays.add(notRun != null ? notRun
                        : replayOne(recorded, action, completedBefore(byKey.get(recorded.key()), recorded), null));
            }
            if (event != null && lastOfEvent.get(recorded.eventAddress()) == i) {
                for (Action triggered : router.apply(event)) {
                    if (!namesByEvent.get(recorded.eventAddress()).contains(triggered.getName())
                            && selection.takesAction(triggered.getName())) {
                        replays.add(newlyTriggered(recorded, triggered.getName(), event.getType()));
                    }
                }
            }
        }
        return new ReplayReport("agent " + name, replays, others, OUTCOMES);
    }

    /** The report of a recorded action the candidate's action of its name cannot run on, or null: it can. */
    private static ActionReplay notRunnable(RecordedAction recorded, Function<Event, List<Action>> router) {
        Event event = recorded.event();
        if (event == null) {
            return notRun(recorded, ActionReplay.Outcome.NOT_REPLAYABLE,
                    "no triggering event was recorded (or it does not read as a Flink Agents event)");
        }
        if (!triggers(router, event, recorded.name())) {
            return notRun(recorded, ActionReplay.Outcome.NOT_TRIGGERED, "the candidate's action "
                    + recorded.name() + " does not listen to the recorded event " + event.getType() + ": not run");
        }
        return null;
    }

    /** The actions of {@code keyHistory} (a key's retained actions, in order) that completed before {@code action}. */
    private static List<RecordedAction> completedBefore(List<RecordedAction> keyHistory, RecordedAction action) {
        List<RecordedAction> before = new ArrayList<>();
        for (RecordedAction earlier : keyHistory) {
            if (earlier.retained.getNumber() >= action.retained.getNumber()) {
                break;
            }
            before.add(earlier);
        }
        return before;
    }

    private static boolean triggers(Function<Event, List<Action>> router, Event event, String actionName) {
        for (Action action : router.apply(event)) {
            if (action.getName().equals(actionName)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param before the retained actions of its key that completed before it, in order
     * @param restorePolicy null: a completed recording; else a journal in flight at a restore under that policy
     */
    private ActionReplay replayOne(RecordedAction recorded, Action action, List<RecordedAction> before,
            DivergencePolicy restorePolicy) {
        List<CallResult> calls = recorded.retained.getState().getCallResults();
        List<String> recordedOutputs = CanonicalJson.events(recorded.state.getOutputEvents());
        List<String> recordedMemory = CanonicalJson.memoryUpdates(recorded.state.getSensoryMemoryUpdates(),
                recorded.state.getShortTermMemoryUpdates());
        if (!(action.getExec() instanceof JavaFunction)) {
            return notRun(recorded, ActionReplay.Outcome.NOT_REPLAYABLE, "the candidate's action " + action.getName()
                    + " is not a Java action (" + action.getExec().getClass().getSimpleName() + ")");
        }
        ReplayMemory memory;
        try {
            memory = new ReplayMemory(before, recorded);
        } catch (Exception e) {
            return notRun(recorded, ActionReplay.Outcome.NOT_REPLAYABLE, "the recorded memory does not rebuild: " + e);
        }
        ActionState journalState = new ActionState();
        calls.forEach(journalState::addCallResult);
        try (DurableExecutionContext journal = new DurableExecutionContext(journalState, null)) {
            journal.setDivergencePolicy(DivergencePolicy.FAIL);
            // A restore runs a call the journal lacks for real: a plan stops at the first, stubs or not.
            ReplayRunnerContext calling = new ReplayRunnerContext(journal,
                    restorePolicy == null ? stubs : Collections.<String, Callable<?>>emptyMap());
            AgentReplayContext ctx = new AgentReplayContext(plan, action.getName(), calling, memory, resources);
            String failure = null;
            boolean stopped = false;
            try {
                ((JavaFunction) action.getExec()).call(recorded.event(), ctx);
            } catch (ReplayStop stop) {
                stopped = true;
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof ReplayStop) {
                    stopped = true;
                } else {
                    failure = String.valueOf(e.getCause());
                }
            } catch (Exception e) {
                failure = e.getClass().getName() + ": " + e.getMessage();
            }
            String unavailable = memory.refused() ? "memory not reconstructible: " + memory.notReconstructible()
                    : stopped ? ctx.unavailable : null;
            ActionReplay.Stop stop = unavailable != null || failure != null ? calling.getStop() : calling.stopWhenFinished(calls);
            boolean finished = unavailable == null && failure == null && stop == null;
            List<String> outputs = finished ? CanonicalJson.events(ctx.sent) : Collections.emptyList();
            List<String> memoryUpdates = finished ? CanonicalJson.memoryUpdates(memory.sensoryUpdates(), memory.shortTermUpdates())
                    : Collections.emptyList();
            ActionReplay.Outcome outcome = unavailable != null ? ActionReplay.Outcome.NOT_REPLAYABLE
                    : stop != null ? stop.kind
                    : failure != null ? ActionReplay.Outcome.FAILED
                    // A journal in flight has no outputs yet: finishing on its journal is the same run.
                    : restorePolicy != null
                            || outputs.equals(recordedOutputs) && memoryUpdates.equals(recordedMemory) ? ActionReplay.Outcome.UNCHANGED
                    : ActionReplay.Outcome.OUTPUT_CHANGED;
            int replayed = calling.getReplayedSlotCount();
            String detail = unavailable != null ? unavailable : failure;
            if (restorePolicy != null) {
                detail = unavailable != null ? RestorePlan.unplannable(restorePolicy, replayed, unavailable)
                        : RestorePlan.describe(restorePolicy, replayed, stop, failure);
            }
            return new ActionReplay(recorded.key(), recorded.seq(), recorded.name(), recorded.retained.getPlanDigest(), outcome,
                    calls.size(), replayed, calling.getStubbedCalls(), unavailable != null ? null : stop,
                    recordedOutputs, outputs, recordedMemory, memoryUpdates, detail, memory.describe(), calling.getOldPaths());
        }
    }

    private static ActionReplay notRun(RecordedAction recorded, ActionReplay.Outcome outcome, String why) {
        List<String> outputs = recorded.state == null ? Collections.emptyList() : CanonicalJson.events(recorded.state.getOutputEvents());
        List<String> memory = recorded.state == null ? Collections.emptyList()
                : CanonicalJson.memoryUpdates(recorded.state.getSensoryMemoryUpdates(), recorded.state.getShortTermMemoryUpdates());
        return new ActionReplay(recorded.key(), recorded.seq(), recorded.name(), recorded.retained.getPlanDigest(), outcome,
                recorded.retained.getState().getCallResults().size(), 0, Collections.emptyList(), null, outputs,
                Collections.emptyList(), memory, Collections.emptyList(), why, "not read", Collections.emptyList());
    }

    private static ActionReplay newlyTriggered(RecordedAction recorded, String actionName, String eventType) {
        return new ActionReplay(recorded.key(), recorded.seq(), actionName, recorded.retained.getPlanDigest(),
                ActionReplay.Outcome.NEWLY_TRIGGERED, 0, 0, Collections.emptyList(), null, Collections.emptyList(),
                Collections.emptyList(), Collections.emptyList(), Collections.emptyList(),
                "the candidate's action " + actionName + " listens to the recorded event " + eventType
                        + ", which has no recording of it: not run", "not read", Collections.emptyList());
    }
}
