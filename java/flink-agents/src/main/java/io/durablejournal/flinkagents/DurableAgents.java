package io.durablejournal.flinkagents;

import io.durablejournal.CallSemantics;
import io.durablejournal.flink.ActionStateStoreFactory;
import java.util.Objects;
import org.apache.flink.agents.api.AgentsExecutionEnvironment;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.configuration.Configuration;
import org.apache.flink.agents.plan.AgentConfiguration;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * Runs a Flink Agents agent on Flink Agents' own operator with durable-journal's native store:
 * the Java counterpart of Flink Agents' {@code CompileUtils.connectToAgent}, with a store
 * factory. Nothing of Flink Agents is patched; the agent's {@code RunnerContext.durableExecute}
 * calls are journaled in each subtask's store and replayed after a failover.
 *
 * <pre>{@code
 * DataStream<Object> answers = DurableAgents.connectToAgent(
 *         requests.keyBy(r -> r.userId),
 *         new SupportAgent(),
 *         ActionStateStoreFactory.fileStores("/var/lib/my-job/journal"));
 * }</pre>
 *
 * <p>With the Kafka store ({@code KafkaActionStateStores.factory(config)} of {@code
 * durable-journal-kafka}) the journals survive the loss of a machine and a job restores at any
 * parallelism. Restore a job over file stores with the parallelism it had: each subtask's journal
 * lives in its own directory.
 */
public final class DurableAgents {
    /**
     * Accumulator: actions whose completed entry the store found after a failover; Flink Agents
     * re-emitted their stored output events instead of running them (summed over subtasks).
     */
    public static final String ACC_ACTIONS_REEMITTED = "durable-journal.actions-reemitted";
    /** Accumulator: interrupted actions that ran again over their journal, their recorded calls replayed. */
    public static final String ACC_ACTIONS_RESUMED = "durable-journal.actions-resumed";

    /** The operator's name, as Flink Agents names it. */
    static final String OPERATOR_NAME = "action-execute-operator";

    private DurableAgents() {}

    /** The agent, planned with Flink Agents' default configuration, over a keyed Java stream. */
    public static <IN, K> SingleOutputStreamOperator<Object> connectToAgent(KeyedStream<IN, K> input, Agent agent,
            ActionStateStoreFactory stores) {
        return connectToAgent(input, planOf(agent, new AgentConfiguration()), stores);
    }

    /**
     * An agent plan over a keyed Java stream; each output is the payload of an {@code OutputEvent}.
     * As in Flink Agents, the operator takes the parallelism of the keyed stream's input; the
     * returned operator can be given another one (and a {@code uid}, which a job restored from a
     * savepoint after changes needs).
     */
    public static <IN, K> SingleOutputStreamOperator<Object> connectToAgent(KeyedStream<IN, K> input, AgentPlan plan,
            ActionStateStoreFactory stores) {
        return connectToAgent(input, plan, stores, null);
    }

    /**
     * {@link #connectToAgent(KeyedStream, AgentPlan, ActionStateStoreFactory)} with a job default
     * for the durable calls of the agent's actions, Java and Python, that declare no semantics:
     * {@link CallSemantics#AT_MOST_ONCE} makes each of them at most once (docs/exactly-once.md); a
     * call declaring its own ({@link AtLeastOnceCall}, {@link AtMostOnceCall}, Python's {@code
     * durable_journal.flink_agents.at_least_once} / {@code at_most_once}) keeps it. Python's
     * {@code durable_execute_async} calls stay at least once. Null: at least once.
     */
    public static <IN, K> SingleOutputStreamOperator<Object> connectToAgent(KeyedStream<IN, K> input, AgentPlan plan,
            ActionStateStoreFactory stores, CallSemantics defaultCallSemantics) {
        Objects.requireNonNull(input, "input");
        MethodByReference.register(input.getExecutionEnvironment());
        return input.transform(OPERATOR_NAME, TypeInformation.of(Object.class),
                        new DurableActionExecutionOperatorFactory<IN, Object>(plan, true, stores)
                                .withDefaultCallSemantics(defaultCallSemantics))
                .setParallelism(input.getParallelism());
    }

    /**
     * The agent over {@code input} keyed by {@code keySelector}, with the configuration and the
     * resources of a Flink Agents execution environment, as {@code env.fromDataStream(input,
     * keySelector).apply(agent).toDataStream()} would plan it. That builder itself cannot take a
     * store: it wires Flink Agents' operator through {@code CompileUtils}, whose only store is the
     * one its configuration names (Kafka or Fluss).
     */
    public static <IN, K> SingleOutputStreamOperator<Object> connectToAgent(AgentsExecutionEnvironment env, DataStream<IN> input,
            KeySelector<IN, K> keySelector, Agent agent, ActionStateStoreFactory stores) {
        Objects.requireNonNull(env, "env");
        Configuration config = env.getConfig();
        if (!(config instanceof AgentConfiguration)) {
            throw new IllegalArgumentException("the environment's configuration is a " + config.getClass().getName()
                    + ", not the AgentConfiguration of Flink Agents' remote execution environment");
        }
        agent.addResourcesIfAbsent(env.getResources());
        return connectToAgent(input.keyBy(keySelector), planOf(agent, (AgentConfiguration) config), stores);
    }

    private static AgentPlan planOf(Agent agent, AgentConfiguration config) {
        Objects.requireNonNull(agent, "agent");
        try {
            return new AgentPlan(agent, config);
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot plan agent " + agent.getClass().getName() + ": " + e.getMessage(), e);
        }
    }
}
