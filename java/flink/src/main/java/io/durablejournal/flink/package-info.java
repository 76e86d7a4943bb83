/**
 * Flink integration: {@link io.durablejournal.flink.DurableActionFunction}, a {@code
 * KeyedProcessFunction} that runs an {@link io.durablejournal.flink.AgentAction} per record with
 * its durable calls journaled in an {@link io.durablejournal.store.ActionStateStore} opened per
 * subtask by an {@link io.durablejournal.flink.ActionStateStoreFactory} (by default the embedded
 * file store, one directory per subtask index).
 *
 * <pre>{@code
 * DataStream<String> answers = requests
 *     .keyBy(r -> r.user, Types.STRING)
 *     .process(new DurableActionFunction<>("support-agent", new MyAgent(), String.class,
 *             ActionStateStoreFactory.fileStores("/var/lib/my-job/journal")), Types.STRING);
 * }</pre>
 *
 * <p>{@link io.durablejournal.flink.DurableAsyncActions} runs the same actions asynchronously on
 * Flink's async operator, several per subtask, so an action can be in flight while a checkpoint
 * completes; after a restore it replays every call it made before and after that checkpoint.
 *
 * <p>Flink classes are {@code compileOnly} for this library: the cluster provides them.
 */
package io.durablejournal.flink;
