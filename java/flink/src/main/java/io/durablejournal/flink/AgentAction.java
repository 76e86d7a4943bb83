package io.durablejournal.flink;

import io.durablejournal.RunnerContextImpl;
import java.io.Serializable;

/**
 * A user action run by {@link DurableActionFunction} for one input record. Side-effecting calls
 * (LLM chats, tool calls) go through {@code ctx.durableExecute(...)} so that a re-run after a
 * failover replays them from the journal instead of running them again.
 *
 * <p>The action must be deterministic in the order and identity of its durable calls for a given
 * input (spec §2.4: a call whose id differs from the recorded one clears the rest of the journal).
 *
 * @param <IN> input record type
 * @param <OUT> output type, written to the ActionState as JSON (Jackson) so a completed action's
 *     output can be re-emitted without running it; null means no output
 */
@FunctionalInterface
public interface AgentAction<IN, OUT> extends Serializable {
    OUT run(IN input, RunnerContextImpl ctx) throws Exception;
}
