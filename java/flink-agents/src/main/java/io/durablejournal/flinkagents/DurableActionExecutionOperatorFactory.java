package io.durablejournal.flinkagents;

import io.durablejournal.CallSemantics;
import io.durablejournal.flink.ActionStateStoreFactory;
import java.util.Objects;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperatorFactory;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;

/**
 * Flink Agents' operator factory, handing each subtask (and each restart of it) a {@link
 * JournalActionStateStore} of its own, which opens the subtask's store with its {@link
 * io.durablejournal.flink.SubtaskScope} (index, parallelism, key groups, attempt, job): a
 * directory of its own for the file store, its key groups' journals for the Kafka store. The
 * factory is Java-serialized into the job graph; the stores are created on the task managers.
 */
public class DurableActionExecutionOperatorFactory<IN, OUT> extends ActionExecutionOperatorFactory<IN, OUT> {
    private static final long serialVersionUID = 1L;

    private final AgentPlan agentPlan;
    private final boolean inputIsJava;
    private final boolean pythonKeyIsPickled;
    private final ActionStateStoreFactory stores;
    private final boolean nativeJournal;
    /** The semantics of durable calls that declare none; null: at least once. */
    private CallSemantics defaultCallSemantics;

    /**
     * The factory with the native journal deciding every durable call of the plan's Java actions
     * ({@link JournaledPlans}).
     *
     * @param inputIsJava true for a Java stream (Java objects in and out), false for the byte
     *     arrays of a Python job, as in Flink Agents' {@code CompileUtils}
     */
    public DurableActionExecutionOperatorFactory(AgentPlan agentPlan, boolean inputIsJava, ActionStateStoreFactory stores) {
        this(agentPlan, inputIsJava, stores, true);
    }

    /**
     * @param nativeJournal true: the native journal decides the durable calls of Java actions;
     *     false: Flink Agents' own journal does, over the same store (Flink Agents as it is, with
     *     its defects: a recorded {@code null} fails the replay, a recorded failure comes back as
     *     a {@code RuntimeException})
     */
    public DurableActionExecutionOperatorFactory(AgentPlan agentPlan, boolean inputIsJava, ActionStateStoreFactory stores,
            boolean nativeJournal) {
        this(agentPlan, inputIsJava, false, stores, nativeJournal);
    }

    /**
     * @param pythonKeyIsPickled for Python input: whether its keys are pickled, as Flink Agents
     *     main's {@code CompileUtils} says (apache/flink-agents#887); Flink Agents 0.3.1 refuses
     *     true when the operator is created
     */
    public DurableActionExecutionOperatorFactory(AgentPlan agentPlan, boolean inputIsJava, boolean pythonKeyIsPickled,
            ActionStateStoreFactory stores, boolean nativeJournal) {
        // Flink Agents' protected constructor (the same in every supported version) takes any
        // input; its store is never used: createStreamOperator is this class's own.
        super(Objects.requireNonNull(agentPlan, "agentPlan"), inputIsJava, (ActionStateStore) null);
        this.agentPlan = agentPlan;
        this.inputIsJava = inputIsJava;
        this.pythonKeyIsPickled = pythonKeyIsPickled;
        // A store that retains completed actions names the plan that ran them (for a replay).
        this.stores = Objects.requireNonNull(stores, "stores").withPlanDigest(PlanDigests.of(agentPlan));
        this.nativeJournal = nativeJournal;
    }

    /**
     * The job's default semantics of the durable calls of the plan's actions that declare none
     * (null, the default: at least once), on the native journal; a call declaring its own ({@link
     * AtMostOnceCall}, {@link AtLeastOnceCall}) keeps it. Flink Agents' own journal ({@code
     * nativeJournal} false) knows no semantics and ignores it.
     */
    public DurableActionExecutionOperatorFactory<IN, OUT> withDefaultCallSemantics(CallSemantics semantics) {
        this.defaultCallSemantics = semantics;
        return this;
    }

    /** The plan every subtask runs (before its Java actions are journaled natively). */
    AgentPlan agentPlan() {
        return agentPlan;
    }

    /** Whether the native journal decides the durable calls of Java actions. */
    boolean nativeJournal() {
        return nativeJournal;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<OUT>> T createStreamOperator(StreamOperatorParameters<OUT> parameters) {
        FlinkAgentsShim shim = FlinkAgentsCompatibility.shim();
        // Rebuilt here, on the task manager: the plan crossed the job graph as JSON.
        AgentPlan plan = nativeJournal ? JournaledPlans.withNativeJournal(agentPlan) : agentPlan;
        Environment environment = parameters.getContainingTask().getEnvironment();
        TaskInfo task = environment.getTaskInfo();
        JournalActionStateStore store = new JournalActionStateStore(stores, task.getIndexOfThisSubtask(),
                task.getNumberOfParallelSubtasks(), task.getMaxNumberOfParallelSubtasks(), task.getAttemptNumber(),
                environment.getJobID()).withDefaultCallSemantics(defaultCallSemantics);
        ActionExecutionOperator<IN, OUT> operator = shim.operator(plan, inputIsJava, pythonKeyIsPickled,
                parameters.getProcessingTimeService(), parameters.getMailboxExecutor(),
                new OperatorAdditions(store, new ActionFailureGuard()));
        operator.setup(parameters.getContainingTask(), parameters.getStreamConfig(), parameters.getOutput());
        return (T) operator;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return FlinkAgentsCompatibility.shim().operatorClass();
    }
}
