package io.durablejournal.flinkagents.cluster;

import io.durablejournal.flinkagents.demo.SideEffectCall;
import io.durablejournal.flinkagents.demo.SupportAgent;
import io.durablejournal.flinkagents.demo.SupportRequest;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.annotation.Action;
import org.apache.flink.agents.api.context.RunnerContext;

/**
 * The agent of {@link ClusterJob}, written against Flink Agents' API only. {@link #draft} makes a
 * chat-like call and sends a {@value #DRAFT_EVENT} event; {@link #resolve} looks up the account,
 * asks for a discount (the call returns {@code null}), tries to charge (the call throws the
 * agent's own {@link QuotaExceededException}, which the action catches), and opens a ticket. Each
 * executed call appends a line to the run's side-effect log, and its result says how many times
 * it has run, so an answer built from a call that ran twice, or a replay that changed a null or a
 * failure, is visibly wrong.
 *
 * <p>The crash: the first time the run's crash request has made every call but the ticket, its
 * process claims the crash ({@link RunFiles#claimCrash}) and the action waits to be killed; the
 * test SIGKILLs that TaskManager.
 */
public class ClusterAgent extends Agent {
    /** Agent configuration: the run's directory ({@link RunFiles}). */
    public static final String RUN_DIR = "durablejournal.cluster.runDir";
    /** Agent configuration: the request whose resolve waits to be killed ("" for none). */
    public static final String CRASH_REQUEST = "durablejournal.cluster.crashRequest";
    public static final String DRAFT_EVENT = "cluster_draft";
    /** How long an action waits to be killed before it gives up (the test kills it in seconds). */
    private static final Duration KILL_DEADLINE = Duration.ofMinutes(3);

    /** The agent's own checked exception: replayed from the journal, it must still be this class. */
    public static final class QuotaExceededException extends Exception {
        private static final long serialVersionUID = 1L;

        public QuotaExceededException(String message) {
            super(message);
        }
    }

    @Action(listenEventTypes = {InputEvent.EVENT_TYPE})
    public static void draft(Event event, RunnerContext ctx) throws Exception {
        SupportRequest request = SupportAgent.requestOf(event);
        String draft = call(ctx, files(ctx), request.id, "chat", () -> "draft for '" + request.text + "'");
        ctx.sendEvent(SupportAgent.drafted(DRAFT_EVENT, request, draft));
    }

    @Action(listenEventTypes = {DRAFT_EVENT})
    public static void resolve(Event event, RunnerContext ctx) throws Exception {
        String requestId = (String) event.getAttr("requestId");
        String user = (String) event.getAttr("user");
        RunFiles files = files(ctx);
        String account = call(ctx, files, requestId, "lookup-account", () -> "account of " + user);
        String discount = call(ctx, files, requestId, "discount", () -> null);
        String charge;
        try {
            call(ctx, files, requestId, "charge", () -> {
                throw new QuotaExceededException("over quota for " + user);
            });
            charge = "charged";
        } catch (QuotaExceededException e) {
            charge = "quota: " + e.getMessage();
        } catch (Exception e) {
            charge = "not the agent's exception: " + e;
        }
        if (requestId.equals(ctx.getConfig().getStr(CRASH_REQUEST, "")) && files.claimCrash()) {
            waitToBeKilled(requestId);
        }
        String ticket = call(ctx, files, requestId, "open-ticket", () -> "ticket for " + requestId);
        files.markAnswered(requestId);
        ctx.sendEvent(new OutputEvent(answer(requestId, (String) event.getAttr("draft"), account, discount, charge, ticket)));
    }

    /** The answer of a request each of whose calls ran exactly once. */
    public static String expectedAnswer(SupportRequest request) {
        return answer(request.id, "draft for '" + request.text + "' (run 1)", "account of " + request.user + " (run 1)", null,
                "quota: over quota for " + request.user, "ticket for " + request.id + " (run 1)");
    }

    private static String answer(String requestId, String draft, String account, String discount, String charge,
            String ticket) {
        return requestId + ": " + draft + " / " + account + " / discount " + (discount == null ? "none" : "'" + discount + "'")
                + " / " + charge + " / " + ticket;
    }

    /** A durable call whose body records its side effect, then returns {@code result}'s value (with its run count) or throws ({@link SideEffectCall}). */
    private static String call(RunnerContext ctx, RunFiles files, String requestId, String callId, Callable<String> result)
            throws Exception {
        return ctx.durableExecute(new SideEffectCall(callId, files.sideEffects().toString(), requestId, result, null));
    }

    /** The SIGKILL ends this process here; a test that never sends it fails the job after the deadline. */
    private static void waitToBeKilled(String requestId) throws InterruptedException {
        Thread.sleep(KILL_DEADLINE.toMillis());
        throw new IllegalStateException(requestId + " waited " + KILL_DEADLINE + " to be killed, and nothing killed it");
    }

    private static RunFiles files(RunnerContext ctx) {
        return new RunFiles(Paths.get(ctx.getConfig().getStr(RUN_DIR, null)));
    }
}
