package io.durablejournal.flinkagents.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * A Flink Agents agent, written against Flink Agents' own API and nothing of durable-journal:
 * {@link #draft} answers an input with a chat-like call and sends a {@value #DRAFT_EVENT} event;
 * {@link #resolve} makes two tool calls and sends the answer as an {@code OutputEvent}. Each call
 * goes through {@code ctx.durableExecute} and appends its side effect to a file
 * ({@link io.durablejournal.demo.SideEffectLog}); its result says how many times it has run ({@code (run 1)} when it ran
 * once), so an answer built from a call that ran twice is visibly wrong.
 *
 * <p>The run's {@link Staging} (named by the agent configuration's {@value #RUN_ID}) counts what
 * ran and injects one crash: the first time the crash request's {@code resolve} has made its
 * first tool call, it throws.
 */
public class SupportAgent extends Agent {
    /** Agent configuration: the run whose {@link Staging} the actions report to. */
    public static final String RUN_ID = "durablejournal.demo.runId";
    /** Agent configuration: the side-effect file. */
    public static final String SIDE_EFFECTS = "durablejournal.demo.sideEffects";
    public static final String DRAFT_EVENT = "support_draft";
    public static final String CHAT = "chat";
    public static final String LOOKUP = "tool-call:lookup-account";
    public static final String TICKET = "tool-call:open-ticket";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Thrown by the injected crash. */
    public static final class InjectedCrash extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedCrash(String requestId) {
            super("injected crash in " + requestId + " after its first tool call");
        }
    }

    /**
     * Its two actions, added by method: Flink Agents 0.3.1 and main spell the {@code @Action}
     * annotation differently ({@code listenEventTypes = ...} against {@code value}), and the demo
     * runs on both.
     */
    public SupportAgent() {
        addAction(new String[] {InputEvent.EVENT_TYPE}, action("draft"));
        addAction(new String[] {DRAFT_EVENT}, action("resolve"));
    }

    private static java.lang.reflect.Method action(String name) {
        try {
            return SupportAgent.class.getMethod(name, Event.class, RunnerContext.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void draft(Event event, RunnerContext ctx) throws Exception {
        SupportRequest request = requestOf(event);
        Staging staging = staging(ctx);
        staging.actionStarted("draft", SupportAgent.class.getClassLoader());
        String draft = call(ctx, staging, request.id, CHAT, "draft for '" + request.text + "'");
        ctx.sendEvent(drafted(DRAFT_EVENT, request, draft));
    }

    /** The request an input event carries. */
    public static SupportRequest requestOf(Event event) {
        return JSON.convertValue(InputEvent.fromEvent(event).getInput(), SupportRequest.class);
    }

    /** The event a draft action sends: of {@code type}, with the request's id and user and the draft. */
    public static Event drafted(String type, SupportRequest request, String draft) {
        Event drafted = new Event(type);
        drafted.setAttr("requestId", request.id);
        drafted.setAttr("user", request.user);
        drafted.setAttr("draft", draft);
        return drafted;
    }

    public static void resolve(Event event, RunnerContext ctx) throws Exception {
        String requestId = (String) event.getAttr("requestId");
        String user = (String) event.getAttr("user");
        Staging staging = staging(ctx);
        staging.actionStarted("resolve", SupportAgent.class.getClassLoader());
        String account = call(ctx, staging, requestId, LOOKUP, "account of " + user);
        if (staging.crashNow(requestId)) {
            throw new InjectedCrash(requestId);
        }
        String ticket = call(ctx, staging, requestId, TICKET, "ticket for " + requestId);
        staging.answered(requestId);
        ctx.sendEvent(new OutputEvent(answer(requestId, (String) event.getAttr("draft"), account, ticket)));
    }

    /** The answer a request gets when each of its calls ran exactly once. */
    public static String expectedAnswer(SupportRequest request) {
        return answer(request.id, "draft for '" + request.text + "' (run 1)", "account of " + request.user + " (run 1)",
                "ticket for " + request.id + " (run 1)");
    }

    private static String answer(String requestId, String draft, String account, String ticket) {
        return requestId + ": " + draft + " / " + account + " / " + ticket;
    }

    private static String call(RunnerContext ctx, Staging staging, String requestId, String callId, String result)
            throws Exception {
        String sideEffects = ctx.getConfig().getStr(SIDE_EFFECTS, null);
        staging.callRequested();
        return ctx.durableExecute(new SideEffectCall(callId, sideEffects, requestId, () -> result, staging::callExecuted));
    }

    private static Staging staging(RunnerContext ctx) {
        return Staging.of(ctx.getConfig().getStr(RUN_ID, null));
    }
}
