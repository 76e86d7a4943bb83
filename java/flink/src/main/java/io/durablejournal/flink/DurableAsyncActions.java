package io.durablejournal.flink;

import io.durablejournal.CallSemantics;
import io.durablejournal.DivergencePolicy;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.types.Either;

/**
 * Runs an {@link AgentAction} per record of a keyed stream asynchronously, with its durable calls
 * journaled: the asynchronous counterpart of {@link DurableActionFunction}, for actions that take
 * long (LLM calls, tools) and must not hold up checkpoints, and for several actions in flight at
 * once per subtask.
 *
 * <pre>{@code
 * DataStream<String> answers = DurableAsyncActions.apply(
 *         requests.keyBy(r -> r.user, Types.STRING),
 *         "support-agent", new SupportAgent(...), Types.STRING,
 *         ActionStateStoreFactory.fileStores("/var/lib/my-job/journal"),
 *         16);   // actions in flight per subtask
 * }</pre>
 *
 * <p>The job gets three chained steps with the parallelism of the keyed step: a keyed step that
 * numbers each key's records ({@link Sequenced}, {@code ValueState<Long>}); Flink's async operator
 * in ordered mode ({@code AsyncDataStream.orderedWait}, no timeout) running {@link
 * DurableAsyncActionFunction}, which checkpoints the records in flight and runs them again after a
 * restore, where their journals replay; and a step that forwards the outputs and confirms which
 * records have left the async operator (see {@link EmissionLedger}). Outputs come in input order.
 * The steps get stable uids derived from the action name ({@code <action>/sequence-numbers},
 * {@code <action>/actions}, {@code <action>/output}), so a savepoint restores into a changed job
 * graph; use one action name per pipeline in a job.
 */
public final class DurableAsyncActions {
    private DurableAsyncActions() {}

    /**
     * @param input the keyed records; the key is part of every store address
     * @param actionName the action's name, part of every store address
     * @param action what runs for each record
     * @param outputType the output type; outputs are stored as JSON (Jackson) and read back as
     *     its class when re-emitted
     * @param storeFactory opens each subtask's store
     * @param maxInFlight actions running or waiting at once per subtask (one thread each)
     */
    public static <K, IN, OUT> SingleOutputStreamOperator<OUT> apply(KeyedStream<IN, K> input, String actionName,
            AgentAction<IN, OUT> action, TypeInformation<OUT> outputType, ActionStateStoreFactory storeFactory, int maxInFlight) {
        return apply(input, actionName, action, outputType, storeFactory, maxInFlight, DivergencePolicy.WARN);
    }

    /**
     * As {@link #apply(KeyedStream, String, AgentAction, TypeInformation, ActionStateStoreFactory, int)},
     * with what a re-run action's journal does when the action makes another call than it recorded
     * ({@link DivergencePolicy}; the other overload uses {@link DivergencePolicy#WARN}).
     */
    public static <K, IN, OUT> SingleOutputStreamOperator<OUT> apply(KeyedStream<IN, K> input, String actionName,
            AgentAction<IN, OUT> action, TypeInformation<OUT> outputType, ActionStateStoreFactory storeFactory, int maxInFlight,
            DivergencePolicy divergencePolicy) {
        return apply(input, actionName, action, outputType, storeFactory, maxInFlight, divergencePolicy, null);
    }

    /**
     * As {@link #apply(KeyedStream, String, AgentAction, TypeInformation, ActionStateStoreFactory, int, DivergencePolicy)},
     * with the semantics of every durable call of the action that declares none ({@link
     * io.durablejournal.DurableCallable#semantics()} null): {@link CallSemantics#AT_MOST_ONCE}
     * makes them at most once (docs/exactly-once.md); null, at least once.
     */
    public static <K, IN, OUT> SingleOutputStreamOperator<OUT> apply(KeyedStream<IN, K> input, String actionName,
            AgentAction<IN, OUT> action, TypeInformation<OUT> outputType, ActionStateStoreFactory storeFactory, int maxInFlight,
            DivergencePolicy divergencePolicy, CallSemantics defaultCallSemantics) {
        return build(input, actionName, action, outputType, Objects.requireNonNull(storeFactory, "storeFactory"), maxInFlight,
                divergencePolicy, defaultCallSemantics);
    }

    /** The same steps with no journal: every (re)run runs every call. For comparisons. */
    public static <K, IN, OUT> SingleOutputStreamOperator<OUT> withoutJournal(KeyedStream<IN, K> input, String actionName,
            AgentAction<IN, OUT> action, TypeInformation<OUT> outputType, int maxInFlight) {
        return build(input, actionName, action, outputType, null, maxInFlight, DivergencePolicy.WARN, null);
    }

    private static <K, IN, OUT> SingleOutputStreamOperator<OUT> build(KeyedStream<IN, K> input, String actionName,
            AgentAction<IN, OUT> action, TypeInformation<OUT> outputType, ActionStateStoreFactory storeFactory, int maxInFlight,
            DivergencePolicy divergencePolicy, CallSemantics defaultCallSemantics) {
        Objects.requireNonNull(input, "input");
        Objects.requireNonNull(outputType, "outputType");
        // Ties the function to its EmittedRecords step; fixed in the job graph, so the same after restarts.
        String pipeline = UUID.randomUUID().toString();
        DurableAsyncActionFunction<K, IN, OUT> function = new DurableAsyncActionFunction<>(pipeline, actionName, action,
                outputType, input.getKeyType(), storeFactory, maxInFlight, divergencePolicy)
                .withDefaultCallSemantics(defaultCallSemantics);

        SingleOutputStreamOperator<Sequenced<K, IN>> sequenced = input
                .process(new SequenceNumbers<>(), Sequenced.typeInfo(input.getKeyType(), input.getType()))
                .name(actionName + ": sequence numbers")
                .uid(actionName + "/sequence-numbers");
        int parallelism = sequenced.getParallelism();
        // Forward with the same parallelism: records of a key reach the subtask (and the store)
        // that numbered them, in order, and the three steps chain.
        SingleOutputStreamOperator<Either<OUT, Long>> results = AsyncDataStream
                .orderedWait(sequenced.forward(), function, 0, TimeUnit.MILLISECONDS, maxInFlight)
                .name(actionName)
                .uid(actionName + "/actions")
                .setParallelism(parallelism);
        return results
                .flatMap(new EmittedRecords<>(pipeline, outputType), outputType)
                .name(actionName + ": output")
                .uid(actionName + "/output")
                .setParallelism(parallelism);
    }
}
