package io.durablejournal.flink.replay;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.ActionState;
import io.durablejournal.CallResult;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.store.RetainedAction;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Replays recorded actions through a changed action before it ships (docs/replay.md): each
 * recorded action a store retained ({@code FileStoreOptions.retainCompleted}, or a Kafka store's
 * {@code KafkaStoreConfig.retainCompleted}; read through {@link RecordedActions}) runs through
 * the {@link ReplayCandidate} on its recorded input, over a journal of its recorded calls.
 * <ul>
 *   <li>A durable call that the journal matches with the recorded slot at its position replays the
 *       recorded outcome (value, null, or the failure of its own class): nothing runs.</li>
 *   <li>A call the recording does not have never runs: the action stops there and the report
 *       names the call and its position, unless the candidate has a stub for that call id.</li>
 *   <li>A call that differs from the recorded slot at its position is a divergence (the journal's
 *       {@link DivergencePolicy#FAIL}): the action stops there, the report has both ids.</li>
 *   <li>The outputs are compared with the recorded ones, as JSON trees.</li>
 * </ul>
 * Which recorded slot replays is decided by the native journal, exactly as on a restore. The
 * store is read without its lock and no file of it changes; nothing is written anywhere.
 *
 * <p>Not thread-safe; a replayer may be used for many replays one after another.
 */
public final class JournalReplayer<IN, OUT> {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    /** The project's operators' actions have no agent memory. */
    private static final String NO_MEMORY = "not read";

    private final ReplayCandidate<IN, OUT> candidate;

    private JournalReplayer(ReplayCandidate<IN, OUT> candidate) {
        this.candidate = Objects.requireNonNull(candidate, "candidate");
    }

    public static <IN, OUT> JournalReplayer<IN, OUT> of(ReplayCandidate<IN, OUT> candidate) {
        return new JournalReplayer<>(candidate);
    }

    /**
     * Replays the actions the store in {@code storeDir} retained that {@code selection} takes and
     * that carry the candidate's action name; the report counts the other names it saw.
     */
    public ReplayReport replayStore(Path storeDir, ReplaySelection selection) {
        return replay(RecordedActions.store(storeDir), selection);
    }

    /**
     * As {@link #replayStore}, over the actions {@code recorded} lists: a file store, a dump of a
     * Kafka store's retained topic, or that topic read directly (read-only, no consumer group).
     */
    public ReplayReport replay(RecordedActions recorded, ReplaySelection selection) {
        List<RetainedAction> chosen = selection.apply(recorded.read());
        List<RetainedAction> ours = new ArrayList<>();
        Map<String, Integer> others = new TreeMap<>();
        for (RetainedAction action : chosen) {
            if (action.getActionName().equals(candidate.actionName())) {
                ours.add(action);
            } else {
                others.merge(action.getActionName(), 1, Integer::sum);
            }
        }
        return new ReplayReport(candidate.actionName(), replayEach(ours), others);
    }

    /**
     * What a restore of the job with the candidate's code does to the journals in flight in {@code
     * storeDir} (its live entries not completed, which a restore replays), under the job's {@code
     * policy}: per entry, how many recorded calls replay, the first new call that will run, and
     * what the policy does at the first difference ({@link ActionReplay#getDetail}). Nothing runs
     * and nothing is written, as for {@link #replayStore}. The entries need their input record
     * (operators store it when their store retains completed actions).
     */
    public ReplayReport planRestore(Path storeDir, DivergencePolicy policy, ReplaySelection selection) {
        Objects.requireNonNull(policy, "policy");
        List<ActionReplay> plans = new ArrayList<>();
        Map<String, Integer> others = new TreeMap<>();
        for (RetainedAction entry : selection.apply(RetainedAction.readInFlight(storeDir))) {
            if (entry.getActionName().equals(candidate.actionName())) {
                plans.add(replayOne(entry, policy));
            } else {
                others.merge(entry.getActionName(), 1, Integer::sum);
            }
        }
        return new ReplayReport(candidate.actionName(), plans, others);
    }

    /** Replays each recorded action given, whatever its name. */
    public ReplayReport replay(List<RetainedAction> recorded) {
        return new ReplayReport(candidate.actionName(), replayEach(recorded), Collections.emptyMap());
    }

    private List<ActionReplay> replayEach(List<RetainedAction> recorded) {
        List<ActionReplay> replays = new ArrayList<>(recorded.size());
        for (RetainedAction action : recorded) {
            replays.add(replayOne(action, null));
        }
        return replays;
    }

    /** @param restorePolicy null: a completed recording; else an entry in flight at a restore under that policy */
    private ActionReplay replayOne(RetainedAction recorded, DivergencePolicy restorePolicy) {
        ActionState state = recorded.getState();
        List<CallResult> calls = state.getCallResults();
        List<String> recordedOutputs = state.getOutputEventsJson();
        JsonNode event = state.getTaskEvent();
        IN input;
        try {
            if (event == null || event.isNull()) {
                return notReplayable(recorded, "no triggering event was recorded (retain with the operator's store options)");
            }
            input = MAPPER.treeToValue(event, candidate.inputClass());
        } catch (IOException e) {
            return notReplayable(recorded, "the recorded event does not read as " + candidate.inputClass().getName() + ": "
                    + e.getMessage());
        }
        ActionState journalState = new ActionState();
        calls.forEach(journalState::addCallResult);
        try (DurableExecutionContext journal = new DurableExecutionContext(journalState, null)) {
            journal.setDivergencePolicy(DivergencePolicy.FAIL);
            // A restore runs a call the journal lacks for real: a plan stops at the first, stubs or not.
            ReplayRunnerContext ctx = new ReplayRunnerContext(journal,
                    restorePolicy == null ? candidate.stubs() : Collections.emptyMap());
            OUT result = null;
            String failure = null;
            try {
                result = candidate.action().run(input, ctx);
            } catch (ReplayStop stopped) {
                // ctx.stop says where and why.
            } catch (Exception e) {
                failure = e.getClass().getName() + ": " + e.getMessage();
            }
            ActionReplay.Stop stop = failure == null ? ctx.stopWhenFinished(calls) : ctx.stop;
            List<String> outputs = stop != null || failure != null || result == null
                    ? Collections.emptyList() : Collections.singletonList(MAPPER.writeValueAsString(result));
            ActionReplay.Outcome outcome = stop != null ? stop.kind
                    : failure != null ? ActionReplay.Outcome.FAILED
                    // An entry in flight has no outputs yet: finishing on its journal is the same run.
                    : restorePolicy != null || sameJson(recordedOutputs, outputs) ? ActionReplay.Outcome.UNCHANGED
                    : ActionReplay.Outcome.OUTPUT_CHANGED;
            if (restorePolicy != null) {
                failure = RestorePlan.describe(restorePolicy, ctx.getReplayedSlotCount(), stop, failure);
            }
            return new ActionReplay(recorded.getKey(), recorded.getSeq(), recorded.getActionName(), recorded.getPlanDigest(),
                    outcome, calls.size(), ctx.getReplayedSlotCount(), ctx.stubbedCalls, stop, recordedOutputs, outputs,
                    failure, NO_MEMORY, ctx.oldPaths);
        } catch (IOException e) {
            throw new IllegalStateException("the candidate's output does not serialize as JSON", e);
        }
    }

    private static ActionReplay notReplayable(RetainedAction recorded, String why) {
        return new ActionReplay(recorded.getKey(), recorded.getSeq(), recorded.getActionName(), recorded.getPlanDigest(),
                ActionReplay.Outcome.NOT_REPLAYABLE, recorded.getState().getCallResults().size(), 0,
                Collections.emptyList(), null, recorded.getState().getOutputEventsJson(), Collections.emptyList(), why,
                NO_MEMORY, Collections.emptyList());
    }

    /** Equal as JSON values (numbers, strings, key order as Jackson's trees compare them). */
    private static boolean sameJson(List<String> a, List<String> b) throws IOException {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!MAPPER.readTree(a.get(i)).equals(MAPPER.readTree(b.get(i)))) {
                return false;
            }
        }
        return true;
    }
}
