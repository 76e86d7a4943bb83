package io.durablejournal.flinkagents;

import org.apache.flink.agents.runtime.context.RunnerContextImpl;

/**
 * How a benchmark ends an action's attempt without completing it, as a failover does: it releases
 * the native journal installed on the runner context, so the next run reads the entry from the
 * store. In the adapter's package because {@link NativeJournalContext} is package-private there.
 */
public final class AttemptEnds {
    private AttemptEnds() {
    }

    /**
     * Ends the attempt of an action that made no durable call: the adapter installs its native
     * journal on {@code context} (as at the first call) and releases it.
     */
    public static void endWithoutCalls(RunnerContextImpl context) {
        NativeJournalContext journal = ServedStates.installJournal(context);
        if (journal != null) {
            journal.release();
        }
    }

    /** Releases the native journal installed on {@code context}; nothing when it has none. */
    public static void releaseJournal(RunnerContextImpl context) {
        if (context.getDurableExecutionContext() instanceof NativeJournalContext) {
            ((NativeJournalContext) context.getDurableExecutionContext()).release();
        }
    }
}
