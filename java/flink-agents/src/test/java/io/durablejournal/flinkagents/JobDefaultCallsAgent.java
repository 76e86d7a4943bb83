package io.durablejournal.flinkagents;

import io.durablejournal.CallInterruptedException;
import io.durablejournal.DurableCall;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * An agent for a job whose default is at most once: its action makes {@code charge}, a call that
 * declares no semantics, and {@code lookup}, an {@link AtLeastOnceCall}. Each crashes the job once
 * after its body ran (an {@link Error} no journal records: a failover during the call). The output
 * says what the re-runs answered for the charge and the lookup.
 */
public class JobDefaultCallsAgent extends Agent {
    public JobDefaultCallsAgent() {
        AgentActions.add(this, "handle", InputEvent.EVENT_TYPE);
    }

    public static void handle(Event event, RunnerContext ctx) throws Exception {
        JournalRun run = JournalRun.of(ctx.getConfig().getStr(JournalSemanticsAgent.RUN_ID, null));
        String charged;
        try {
            charged = ctx.durableExecute(AgentCall.of("charge", () -> crashOnce(run, "charge")));
        } catch (CallInterruptedException e) {
            charged = "interrupted " + e.getIdempotencyKey();
        }
        String looked = ctx.durableExecute(AtLeastOnceCall.of(AgentCall.of("lookup", () -> crashOnce(run, "lookup"))));
        ctx.sendEvent(new OutputEvent(charged + "|" + looked));
    }

    private static String crashOnce(JournalRun run, String call) {
        String key = DurableCall.current().idempotencyKey();
        run.ran(call, null);
        if (run.runs().get(call) == 1) {
            throw new JournalRun.InjectedCrash("during " + call);
        }
        return call + " " + key;
    }
}
