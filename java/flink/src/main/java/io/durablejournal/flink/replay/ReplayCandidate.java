package io.durablejournal.flink.replay;

import io.durablejournal.flink.AgentAction;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * The changed action a {@link JournalReplayer} runs recorded actions through: an action of the
 * project's operators ({@link AgentAction}, as {@code DurableActionFunction} runs it), the name its
 * recorded actions carry, its input and output types, and stubs for calls the recording lacks.
 * Immutable; {@link #withStub} returns a new candidate.
 *
 * @param <IN> the input record type (recorded as the action's triggering event)
 * @param <OUT> the output type (recorded as its output event)
 */
public final class ReplayCandidate<IN, OUT> {
    private final String actionName;
    private final AgentAction<IN, OUT> action;
    private final Class<IN> inputClass;
    private final Class<OUT> outputClass;
    private final Map<String, Callable<?>> stubs;

    private ReplayCandidate(String actionName, AgentAction<IN, OUT> action, Class<IN> inputClass, Class<OUT> outputClass,
            Map<String, Callable<?>> stubs) {
        this.actionName = Objects.requireNonNull(actionName, "actionName");
        this.action = Objects.requireNonNull(action, "action");
        this.inputClass = Objects.requireNonNull(inputClass, "inputClass");
        this.outputClass = Objects.requireNonNull(outputClass, "outputClass");
        this.stubs = Collections.unmodifiableMap(stubs);
    }

    /** The candidate for the recorded actions named {@code actionName}. */
    public static <IN, OUT> ReplayCandidate<IN, OUT> of(String actionName, AgentAction<IN, OUT> action, Class<IN> inputClass,
            Class<OUT> outputClass) {
        return new ReplayCandidate<>(actionName, action, inputClass, outputClass, new LinkedHashMap<>());
    }

    /**
     * Answers the durable call {@code callId}, when the recording has no slot for it, with what
     * {@code stub} returns (or throws) instead of stopping the action there. The real call never
     * runs in a replay.
     */
    public ReplayCandidate<IN, OUT> withStub(String callId, Callable<?> stub) {
        Map<String, Callable<?>> more = new LinkedHashMap<>(stubs);
        more.put(Objects.requireNonNull(callId, "callId"), Objects.requireNonNull(stub, "stub"));
        return new ReplayCandidate<>(actionName, action, inputClass, outputClass, more);
    }

    /**
     * Answers the durable call {@code callId}, when the recording has no slot for it, with {@code
     * json} read as the call's result class, as a recorded value of that JSON would replay
     * ({@link RecordedValueStub}; what a command's {@code --stub} gives).
     *
     * @throws IllegalArgumentException when {@code json} is not one JSON value
     */
    public ReplayCandidate<IN, OUT> withStubJson(String callId, String json) {
        return withStub(callId, RecordedValueStub.of(json));
    }

    public String actionName() {
        return actionName;
    }

    AgentAction<IN, OUT> action() {
        return action;
    }

    Class<IN> inputClass() {
        return inputClass;
    }

    Class<OUT> outputClass() {
        return outputClass;
    }

    Map<String, Callable<?>> stubs() {
        return stubs;
    }
}
