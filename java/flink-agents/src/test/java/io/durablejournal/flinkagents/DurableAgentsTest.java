package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flinkagents.demo.AgentJob;
import io.durablejournal.flinkagents.demo.SupportAgent;
import io.durablejournal.flinkagents.demo.SupportRequest;
import java.lang.reflect.Method;
import org.apache.flink.agents.api.AgentsExecutionEnvironment;
import org.apache.flink.agents.api.resource.ResourceDescriptor;
import org.apache.flink.agents.api.resource.ResourceType;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.junit.jupiter.api.Test;

/** What {@link DurableAgents} builds into a job graph (the MiniCluster tests run such jobs). */
class DurableAgentsTest {
    private static DataStream<SupportRequest> requests(StreamExecutionEnvironment env, int parallelism) {
        return env.fromData(SupportRequest.number(0), SupportRequest.number(1)).map(r -> r, Types.POJO(SupportRequest.class))
                .setParallelism(parallelism);
    }

    private static DurableActionExecutionOperatorFactory<?, ?> factoryOf(SingleOutputStreamOperator<Object> agent) {
        Transformation<Object> transformation = agent.getTransformation();
        return (DurableActionExecutionOperatorFactory<?, ?>) ((OneInputTransformation<?, ?>) transformation).getOperatorFactory();
    }

    @Test
    void theAgentRunsOnFlinkAgentsOperatorWithTheParallelismOfItsKeyedInput() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        SingleOutputStreamOperator<Object> agent = DurableAgents.connectToAgent(
                requests(env, 3).keyBy(new AgentJob.ByUser(), Types.STRING), new SupportAgent(), ActionStateStoreFactory.inMemory());

        assertEquals(3, agent.getParallelism(), "as Flink Agents' CompileUtils sets it");
        assertEquals(VersionFixtures.OPERATOR_CLASS,
                factoryOf(agent).getStreamOperatorClass(getClass().getClassLoader()));
        assertTrue(factoryOf(agent).agentPlan().getActions().containsKey("resolve"));
        assertSame(MethodByReference.class, ((SerializerConfigImpl) env.getConfig().getSerializerConfig())
                .getDefaultKryoSerializerClasses().get(Method.class), "Kryo copies methods by reference in this job");
    }

    @Test
    void theEnvironmentRouteKeepsTheAgentsEnvironmentsConfigurationAndResources() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        AgentsExecutionEnvironment agents = AgentsExecutionEnvironment.getExecutionEnvironment(env);
        agents.getConfig().setStr("durablejournal.test.setting", "from the environment");
        // Planning only looks the class up; the connection is never opened here.
        agents.addResource("environmentConnection", ResourceType.CHAT_MODEL_CONNECTION,
                ResourceDescriptor.Builder.newBuilder(DurableAgentsTest.class.getName()).build());
        SupportAgent agent = new SupportAgent();

        SingleOutputStreamOperator<Object> out = DurableAgents.connectToAgent(agents, requests(env, 2), new AgentJob.ByUser(),
                agent, ActionStateStoreFactory.inMemory());

        assertEquals("from the environment", factoryOf(out).agentPlan().getConfig().getStr("durablejournal.test.setting", null));
        assertTrue(factoryOf(out).agentPlan().getResourceProviders().get(ResourceType.CHAT_MODEL_CONNECTION)
                .containsKey("environmentConnection"), "the environment's resources are the agent's");
    }
}
