package io.durablejournal.flinkagents;

import io.durablejournal.flink.ActionStateStoreFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;

/**
 * One round of {@code LoaderLeakProbe} over the Flink Agents adapter's jar: the adapter's store
 * (a memory store), an action's context as Flink Agents' operator builds it with the adapter's
 * native journal installed, one call recorded and then replayed through Flink Agents' bridge
 * methods, closed. Loaded only by the round's class loader, with Flink Agents; Flink comes from
 * the shared parent, as from Flink's {@code lib/}.
 */
public final class AgentsLoaderRound implements Callable<String> {
    private static final byte[] CHAT = "\"hello\"".getBytes(StandardCharsets.UTF_8);

    @Override
    public String call() {
        AgentPlan plan = Fixtures.plan();
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            RunnerContextImpl first = Fixtures.operatorContext(store, "user-1", 1, Fixtures.draft(plan), Fixtures.input(1), plan);
            ServedStates.installJournal(first);
            first.matchNextOrClearSubsequentCallResult("chat", "");
            first.recordCallCompletion("chat", "", CHAT, null);
            RunnerContextImpl replay = Fixtures.operatorContext(store, "user-1", 1, Fixtures.draft(plan), Fixtures.input(1), plan);
            ServedStates.installJournal(replay);
            Object[] recorded = replay.matchNextOrClearSubsequentCallResult("chat", "");
            return "replayed=" + recorded[0] + " " + new String((byte[]) recorded[1], StandardCharsets.UTF_8);
        }
    }
}
