package io.durablejournal.flinkagents;

import io.durablejournal.CallInterruptedException;
import io.durablejournal.DurableCall;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.annotation.Action;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * An agent whose action makes two calls to a service that deduplicates by idempotency key (its
 * requests are the run's {@code request <key>} counts): {@code charge}, a default call, and {@code
 * notify}, an {@link AtMostOnceCall}. Each crashes the job once after the service took its request,
 * with an {@link Error} no journal records: a failover during the call. The output names the
 * charge's key and what the re-run of the notification answered.
 */
public class IdempotentCallsAgent extends Agent {
    @Action(listenEventTypes = {InputEvent.EVENT_TYPE})
    public static void handle(Event event, RunnerContext ctx) throws Exception {
        JournalRun run = JournalRun.of(ctx.getConfig().getStr(JournalSemanticsAgent.RUN_ID, null));
        String charged = ctx.durableExecute(AgentCall.of("charge", () -> send(run, "charge")));
        String notified;
        try {
            notified = ctx.durableExecute(AtMostOnceCall.of(AgentCall.of("notify", () -> send(run, "notify"))));
        } catch (CallInterruptedException e) {
            notified = "interrupted " + e.getIdempotencyKey();
        }
        ctx.sendEvent(new OutputEvent(charged + "|" + notified));
    }

    /** The body of a call: one request under its key; the first run of each call then crashes. */
    private static String send(JournalRun run, String call) {
        String key = DurableCall.current().idempotencyKey();
        run.ran("request " + key, null);
        run.ran(call, null);
        if (run.runs().get(call) == 1) {
            throw new JournalRun.InjectedCrash("during " + call);
        }
        return call + " " + key;
    }
}
