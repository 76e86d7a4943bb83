package io.durablejournal.demo;

import io.durablejournal.DurableCallable;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.flink.AgentAction;
import java.util.concurrent.Callable;

/**
 * An agent-style action: for each request it makes three durable calls, a "chat" (the LLM) and two
 * tool calls (look up the account, open a ticket), each a side effect recorded in the {@link
 * SideEffectLog}. Every call's result names how many times that call has run ("run 1" when it
 * ran once), so an answer built from a call that ran twice differs from the expected one.
 *
 * <p>It can crash once, deterministically, where its {@link CrashPlan} says.
 */
public class SupportAgent implements AgentAction<Request, String> {
    private static final long serialVersionUID = 1L;
    public static final String CHAT = "chat";

    private final String sideEffectLog;
    private final CrashPlan crash;

    public SupportAgent(String sideEffectLog, CrashPlan crash) {
        this.sideEffectLog = sideEffectLog;
        this.crash = crash;
    }

    /** Thrown by the injected crash. */
    public static final class InjectedCrash extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public InjectedCrash(String message) {
            super(message);
        }
    }

    @Override
    public String run(Request request, RunnerContextImpl ctx) throws Exception {
        String reply = ctx.durableExecute(call(request, CHAT, () -> "reply to '" + request.text + "'"));
        crash.after(request, 1);
        String account = ctx.durableExecute(call(request, lookupId(request), () -> "account of " + request.user));
        crash.after(request, 2);
        String ticket = ctx.durableExecute(call(request, ticketId(request), () -> "ticket for " + request.id));
        crash.after(request, 3);
        return answer(request, reply, account, ticket);
    }

    /** The answer when every call ran exactly once. */
    public static String expectedAnswer(Request request) {
        return answer(request,
                "reply to '" + request.text + "' (run 1)",
                "account of " + request.user + " (run 1)",
                "ticket for " + request.id + " (run 1)");
    }

    private static String answer(Request request, String reply, String account, String ticket) {
        return request.id + ": " + reply + " | " + account + " | " + ticket;
    }

    public static String lookupId(Request request) {
        return "tool-call:lookup-" + request.id;
    }

    public static String ticketId(Request request) {
        return "tool-call:ticket-" + request.id;
    }

    /** A durable call whose body records its side effect and says which run of it this is. */
    private DurableCallable<String> call(Request request, String id, Callable<String> body) {
        String log = sideEffectLog;
        return DurableCallable.of(id, String.class, () -> {
            int run = SideEffectLog.record(log, request.id, id);
            return body.call() + " (run " + run + ")";
        });
    }
}
