package io.durablejournal.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.demo.AgentJob;
import io.durablejournal.demo.Request;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;

/** How {@link DurableAsyncActions} wires the job, without running it. */
class DurableAsyncActionsTest {
    private static KeyedStream<Request, String> requests(StreamExecutionEnvironment env) {
        return env.fromData(new Request("req-00", "user-0", "question 0"))
                .keyBy(new AgentJob.ByUser(), Types.STRING);
    }

    /**
     * The emission ledger is exact (and prunes as early as possible) when the step confirming
     * emitted records runs in the async operator's task, on its thread: the three steps must chain.
     */
    @Test
    void theThreeStepsChainIntoOneTask() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(3);
        DurableAsyncActions.apply(requests(env), "support-agent", (request, ctx) -> request.id, Types.STRING,
                        ActionStateStoreFactory.inMemory(), 4)
                .sinkTo(new DiscardingSink<>());
        List<String> vertices = new ArrayList<>();
        for (JobVertex vertex : env.getStreamGraph().getJobGraph().getVertices()) {
            vertices.add(vertex.getName() + " x" + vertex.getParallelism());
        }
        assertTrue(vertices.stream().anyMatch(name -> name.contains(
                "support-agent: sequence numbers -> support-agent -> support-agent: output") && name.endsWith(" x3")), vertices.toString());
    }

    /** Stable uids: the checkpointed sequence numbers and in-flight records survive graph changes. */
    @Test
    void theStepsHaveStableUidsFromTheActionName() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        DurableAsyncActions.apply(requests(env), "support-agent", (request, ctx) -> request.id, Types.STRING,
                        ActionStateStoreFactory.inMemory(), 4)
                .sinkTo(new DiscardingSink<>());
        List<String> uids = new ArrayList<>();
        for (org.apache.flink.streaming.api.graph.StreamNode node : env.getStreamGraph().getStreamNodes()) {
            if (node.getTransformationUID() != null) {
                uids.add(node.getTransformationUID());
            }
        }
        assertEquals(List.of("support-agent/actions", "support-agent/output", "support-agent/sequence-numbers"),
                uids.stream().sorted().collect(java.util.stream.Collectors.toList()));
    }

    @Test
    void refusesNoActionsInFlight() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> DurableAsyncActions.apply(
                requests(env), "support-agent", (request, ctx) -> request.id, Types.STRING, ActionStateStoreFactory.inMemory(), 0));
        assertEquals("maxInFlight must be at least 1: 0", refused.getMessage());
    }
}
