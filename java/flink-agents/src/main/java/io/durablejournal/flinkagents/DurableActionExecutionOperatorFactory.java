package io.durablejournal.flinkagents;

import io.durablejournal.flink.ActionStateStoreFactory;
import java.util.Objects;
import org.apache.flink.agents.plan.AgentPlan;
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
    private final ActionStateStoreFactory stores;

    /**
     * @param inputIsJava true for a Java stream (Java objects in and out), false for the byte
     *     arrays of a Python job, as in Flink Agents' {@code CompileUtils}
     */
    public DurableActionExecutionOperatorFactory(AgentPlan agentPlan, boolean inputIsJava, ActionStateStoreFactory stores) {
        super(Objects.requireNonNull(agentPlan, "agentPlan"), inputIsJava);
        this.agentPlan = agentPlan;
        this.inputIsJava = inputIsJava;
        this.stores = Objects.requireNonNull(stores, "stores");
    }

    /** The plan every subtask runs. */
    AgentPlan agentPlan() {
        return agentPlan;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<OUT>> T createStreamOperator(StreamOperatorParameters<OUT> parameters) {
        Environment environment = parameters.getContainingTask().getEnvironment();
        TaskInfo task = environment.getTaskInfo();
        JournalActionStateStore store = new JournalActionStateStore(stores, task.getIndexOfThisSubtask(),
                task.getNumberOfParallelSubtasks(), task.getMaxNumberOfParallelSubtasks(), task.getAttemptNumber(),
                environment.getJobID());
        GuardedActionExecutionOperator<IN, OUT> operator = new GuardedActionExecutionOperator<>(agentPlan, inputIsJava,
                parameters.getProcessingTimeService(), parameters.getMailboxExecutor(), store, new ActionFailureGuard());
        operator.setup(parameters.getContainingTask(), parameters.getStreamConfig(), parameters.getOutput());
        return (T) operator;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return GuardedActionExecutionOperator.class;
    }
}
