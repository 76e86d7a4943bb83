package io.durablejournal.flinkagents;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.context.MemoryObject;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * The agent {@link AgentReplayerTest} records and the candidates it replays against: {@link
 * #answer} (on the input event) reads how many requests of its key it has seen from short-term
 * memory, asks an LLM and a lookup tool, counts the request and sends a {@value #REVIEW} event;
 * {@link #review} (on that event) asks an audit tool, behind a patch marker the recording
 * records, and outputs the reviewed answer. The
 * configuration's {@value #VARIANT} picks how a candidate changes {@link #answer}; the
 * constructor picks its action name and what {@link #review} listens to. Every call body counts
 * in {@link #CALLS}.
 */
public class ReplayAgent extends Agent {
    public static final String VARIANT = "durablejournal.test.replayVariant";
    public static final String REVIEW = "review_request";
    /** Call bodies that ran, in this JVM (the recording MiniCluster's and the replays'). */
    public static final AtomicInteger CALLS = new AtomicInteger();

    /** The agent as recorded: {@code answer} on the input event, {@code review} on {@value #REVIEW}. */
    public ReplayAgent() {
        this("answer", REVIEW);
    }

    /**
     * @param answerAction the method (and so the action name) that answers the input: {@code answer}
     *     or {@code respond} (the renamed action)
     * @param reviewListensTo the event type {@code review} listens to
     */
    public ReplayAgent(String answerAction, String reviewListensTo) {
        AgentActions.add(this, answerAction, InputEvent.EVENT_TYPE);
        AgentActions.add(this, "review", reviewListensTo);
    }

    private static AgentCall<String> call(String id, String result) {
        return AgentCall.of(id, () -> {
            CALLS.incrementAndGet();
            return result;
        });
    }

    public static void answer(Event event, RunnerContext ctx) throws Exception {
        String input = (String) InputEvent.fromEvent(event).getInput();
        String variant = ctx.getConfig().getStr(VARIANT, "recorded");
        if (variant.equals("long-term")) {
            ctx.getLongTermMemory();
        }
        if (variant.equals("throws")) {
            throw new IllegalStateException("the candidate fails on " + input);
        }
        MemoryObject memory = ctx.getShortTermMemory();
        int seen = memory.isExist("seen") ? (Integer) memory.get("seen").getValue() : 0;
        String prompt = variant.equals("prompt") ? "Briefly: "
                : variant.equals("patched") && Patches.patched(ctx, "prompt-v2") ? "v2: " : "Answer: ";
        String answer;
        switch (variant) {
            case "remove-call":
                answer = ctx.durableExecute(call("llm", "LLM says " + input));
                break;
            case "rename-call":
                answer = ctx.durableExecute(call("llm", "LLM says " + input)) + " "
                        + ctx.durableExecute(call("tool:search", "#" + input.length()));
                break;
            case "reorder":
                String looked = ctx.durableExecute(call("tool:lookup", "#" + input.length()));
                answer = ctx.durableExecute(call("llm", "LLM says " + input)) + " " + looked;
                break;
            case "add-call":
                answer = ctx.durableExecute(call("llm", "LLM says " + input)) + " "
                        + ctx.durableExecute(call("tool:lookup", "#" + input.length())) + " "
                        + ctx.durableExecute(call("tool:mail", "mailed"));
                break;
            case "crash":
                // Recorded only: the key's second request crashes the job after its llm call (a journal in flight).
                answer = ctx.durableExecute(call("llm", "LLM says " + input));
                if (seen == 1) {
                    throw new IllegalStateException("injected crash after llm of " + input);
                }
                answer += " " + ctx.durableExecute(call("tool:lookup", "#" + input.length()));
                break;
            default:
                answer = ctx.durableExecute(call("llm", "LLM says " + input)) + " "
                        + ctx.durableExecute(call("tool:lookup", "#" + input.length()));
        }
        memory.set("seen", seen + 1);
        Event review = new Event(REVIEW);
        review.setAttr("answer", prompt + answer + " (request " + (seen + 1) + ")");
        ctx.sendEvent(review);
    }

    /** The renamed {@link #answer}. */
    public static void respond(Event event, RunnerContext ctx) throws Exception {
        answer(event, ctx);
    }

    public static void review(Event event, RunnerContext ctx) throws Exception {
        // A change made before the recording: its marker is recorded, so every replay takes the new path.
        // ("drop-marker": a candidate that no longer asks.)
        boolean v2 = ctx.getConfig().getStr(VARIANT, "recorded").equals("drop-marker") || Patches.patched(ctx, "audit-v2");
        String audit = v2 ? ctx.durableExecute(call("tool:audit", "audited"))
                : ctx.durableExecute(call("tool:audit-v1", "audited by v1"));
        ctx.sendEvent(new OutputEvent(event.getAttr("answer") + " [" + audit + "]"));
    }
}
