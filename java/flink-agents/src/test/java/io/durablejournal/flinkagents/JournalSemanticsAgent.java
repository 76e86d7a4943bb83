package io.durablejournal.flinkagents;

import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * A Flink Agents agent written against Flink Agents' API only, whose one action makes each kind of
 * durable call whose replay differs between Flink Agents 0.3.1's journal and the native one: a call
 * that returns {@code null}, a call that throws a checked exception of the agent's own class (the
 * action catches it), a {@code durableExecuteAsync} call, and a call with a reconciler whose body
 * crashes the job once, leaving its slot PENDING. Each body reports to the run's {@link JournalRun}
 * (named by the agent configuration's {@value #RUN_ID}); the output names every outcome.
 */
public class JournalSemanticsAgent extends Agent {
    public static final String RUN_ID = "durablejournal.test.runId";

    /** The agent's own checked exception. */
    public static final class QuotaExceededException extends Exception {
        private static final long serialVersionUID = 1L;

        public QuotaExceededException(String message) {
            super(message);
        }
    }

    /** Its actions, added as every supported Flink Agents version takes them (no {@code @Action}: its form differs). */
    public JournalSemanticsAgent() {
        AgentActions.add(this, "handle", InputEvent.EVENT_TYPE);
    }

    public static void handle(Event event, RunnerContext ctx) throws Exception {
        JournalRun run = JournalRun.of(ctx.getConfig().getStr(RUN_ID, null));
        String greeting = ctx.durableExecute(AgentCall.of("greet", () -> run.ran("greet", "hello")));
        String missing = ctx.durableExecute(AgentCall.of("lookup", () -> run.ran("lookup", null)));
        String branch;
        try {
            ctx.durableExecute(AgentCall.of("charge", () -> {
                run.ran("charge", null);
                throw new QuotaExceededException("over quota");
            }));
            branch = "charged";
        } catch (QuotaExceededException e) {
            branch = "quota: " + e.getMessage();
        } catch (RuntimeException e) {
            branch = "runtime: " + e.getMessage();
        }
        String notified = ctx.durableExecuteAsync(AgentCall.of("notify", () -> run.ran("notify", "notified")));
        run.crashAfterRecordedCalls();
        String refund = ctx.durableExecute(AgentCall.reconcilable("refund", String.class, () -> {
            run.ran("refund", null);
            run.crashInsideACall();
            return "refunded";
        }, () -> run.ran("refund-reconciled", "refund found")));
        ctx.sendEvent(new OutputEvent(greeting + "|" + missing + "|" + branch + "|" + notified + "|" + refund));
    }
}
