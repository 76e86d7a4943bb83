package io.durablejournal.flink;

import io.durablejournal.CallSemantics;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.testing.Restarts;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * A job of a few records of one key, on one subtask, run by one of our two operators over file
 * stores: the action named {@code act}, restarted once after a failure. There is no checkpoint, so
 * the restarted job reads its records again and the store keeps the first attempt's journals.
 */
final class OneKeyJob {
    /** The operator names the parameterized tests run the job with. */
    static final String ACTION_FUNCTION = "DurableActionFunction";
    static final String ASYNC_ACTIONS = "DurableAsyncActions";

    private OneKeyJob() {}

    /** Submits the job of {@code records} (with {@code operator}, {@value #ACTION_FUNCTION} or {@value #ASYNC_ACTIONS}). */
    static JobClient start(String name, String operator, AgentAction<String, String> action, DivergencePolicy policy,
            Path storeDir, String... records) throws Exception {
        return start(name, operator, action, policy, null, 1, storeDir, records);
    }

    /** {@link #start} with the operator's default call semantics (null: none) and {@code restarts} restarts. */
    static JobClient start(String name, String operator, AgentAction<String, String> action, DivergencePolicy policy,
            CallSemantics defaultCallSemantics, int restarts, Path storeDir, String... records) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Restarts.fixedDelay(new Configuration(), restarts, Duration.ofMillis(10)));
        env.setParallelism(1);
        KeyedStream<String, String> keyed = env.fromData(records).keyBy(r -> "one key", Types.STRING);
        ActionStateStoreFactory stores = ActionStateStoreFactory.fileStores(storeDir.toString());
        DataStream<String> answers = operator.equals(ACTION_FUNCTION)
                ? keyed.process(new DurableActionFunction<String, String, String>("act", action, String.class, stores)
                        .withDivergencePolicy(policy).withDefaultCallSemantics(defaultCallSemantics), Types.STRING)
                : DurableAsyncActions.apply(keyed, "act", action, Types.STRING, stores, 2, policy, defaultCallSemantics);
        answers.sinkTo(new DiscardingSink<>());
        return env.executeAsync(name + " " + operator);
    }
}
