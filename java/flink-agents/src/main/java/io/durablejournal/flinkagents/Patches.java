package io.durablejournal.flinkagents;

import java.util.Objects;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * Markers for code of a Flink Agents Java action that must take the old path on executions
 * recorded before a change (Temporal's {@code patched}; docs/replay.md, spec §2.9):
 *
 * <pre>{@code
 * String prompt = Patches.patched(ctx, "prompt-v2") ? NEW_PROMPT : OLD_PROMPT;
 * }</pre>
 *
 * True in a new execution (the marker is recorded in the action's journal) and in a replay of an
 * execution that recorded it; false in a replay of an execution recorded before the change. The
 * native journal decides ({@code DurableExecutionContext.patched}).
 */
public final class Patches {
    private Patches() {}

    /**
     * Whether this execution of the action takes the code of change {@code changeId}.
     *
     * @throws IllegalArgumentException when {@code ctx} is not a runner context of the native
     *     journal (the action does not run under {@link DurableAgents}' operator or a replayer):
     *     without the journal the answer would be a guess
     */
    public static boolean patched(RunnerContext ctx, String changeId) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(changeId, "changeId");
        if (!(ctx instanceof PatchedContext)) {
            throw new IllegalArgumentException("patched(\"" + changeId + "\") needs the runner context of the native journal"
                    + " (DurableAgents' operator, or a replay), not a " + ctx.getClass().getName());
        }
        return ((PatchedContext) ctx).patched(changeId);
    }

    /** A runner context whose journal answers {@link Patches#patched}. */
    public interface PatchedContext {
        /** See {@link Patches#patched}. */
        boolean patched(String changeId);
    }
}
