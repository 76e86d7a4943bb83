package io.durablejournal.kafka;

import io.durablejournal.DurableCallable;
import io.durablejournal.JournalException;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.demo.AgentJob;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.SideEffectLog;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.testing.RunRegistry;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * Kafka faults that a test sets off from inside the demo's agent job on a MiniCluster (its actions
 * run in this JVM), so that each happens at a known point of the run and nothing waits on a clock:
 * before a request's calls ({@link #runWithFaultBeforeRequest}) or while a call completes ({@link
 * #runWithFaultWhenACallCompletes}). The fault itself (stop a broker, kill a leader, kill the cluster) is
 * a {@link Step} of the test's, held with what it did by the run's {@link Fault}: the job's action
 * finds it by run id, as it finds any object of its test ({@link RunRegistry}), so a step is never
 * serialized and may use whatever the test holds.
 */
final class StagedFaults {
    /** The fault of each job under way. */
    private static final RunRegistry<Fault> RUNS = new RunRegistry<>();

    private StagedFaults() {}

    /** A job's fault: what it does (its steps, run in this JVM) and what it did. */
    static final class Fault {
        private final Step setOff;
        private final Step recovery;
        volatile boolean done;
        /** A failure to bring Kafka back on the background thread ({@link StagedFaults#inBackground}). */
        volatile Throwable restartFailure;
        volatile JournalException callFailure;
        volatile Object[] slotAfterFailure;
        volatile int reconciled;
        /** The brokers killed, for the test to restart. */
        final List<Integer> killed = new CopyOnWriteArrayList<>();

        /** A fault that {@code setOff} sets off and the job's restart recovers from. */
        Fault(Step setOff) {
            this(setOff, fault -> { });
        }

        /** A fault that {@code setOff} sets off and {@code recovery} undoes once a durable call has failed. */
        Fault(Step setOff, Step recovery) {
            this.setOff = setOff;
            this.recovery = recovery;
        }

        void setOff() throws Exception {
            done = true;
            setOff.run(this);
        }

        void recover() throws Exception {
            recovery.run(this);
        }
    }

    /** A step of a fault, run in this JVM by the job's action. */
    interface Step {
        void run(Fault fault) throws Exception;
    }

    /** Runs {@code step} on a thread of its own (Kafka coming back while the job goes on), noting its failure. */
    static void inBackground(String name, Fault fault, Step step) {
        new Thread(() -> {
            try {
                step.run(fault);
            } catch (Throwable t) {
                fault.restartFailure = t;
            }
        }, name).start();
    }

    /**
     * Where a run's fault goes off: at request {@code at} of the run {@code runId}, whose {@link
     * Fault} the job's action finds by that id. Shipped with the action, so serializable.
     */
    private static final class Trigger implements Serializable {
        private static final long serialVersionUID = 1L;
        private final String at;
        private final String runId;

        Trigger(String at, String runId) {
            this.at = at;
            this.runId = runId;
        }

        /** The run's fault. */
        Fault fault() {
            return RUNS.of(runId);
        }

        /** Whether {@code request} is the one to set the fault off for, and it was not set off yet. */
        boolean due(Request request, Fault fault) {
            return request.id.equals(at) && !fault.done;
        }
    }

    /**
     * The demo's agent job of {@code settings} ({@link DemoJobs#run}) with its support agent; when
     * request {@code at} starts, {@code fault} is set off once, then the request runs.
     */
    static AgentJob.Outcome runWithFaultBeforeRequest(AgentJob.Settings settings, String at, Fault fault) throws Exception {
        SupportAgent agent = settings.supportAgent();
        return runJob(settings, at, fault, trigger -> (request, ctx) -> {
            Fault due = trigger.fault();
            if (trigger.due(request, due)) {
                due.setOff();
            }
            return agent.run(request, ctx);
        });
    }

    /**
     * The demo's agent job of {@code settings} with an agent of three calls per request, the last
     * one reconcilable (a ticket: the reconciler looks it up in the side-effect log). For request
     * {@code at}, the ticket's body sets off {@code fault} once it has opened the ticket, so its
     * completion cannot be recorded; the agent notes the failure and the journal's slot, runs the
     * fault's recovery and fails the action (the job restarts).
     */
    static AgentJob.Outcome runWithFaultWhenACallCompletes(AgentJob.Settings settings, String at, Fault fault) throws Exception {
        String sideEffectLog = settings.sideEffectLog().toString();
        return runJob(settings, at, fault, trigger -> (request, ctx) -> answerWithTicketFault(sideEffectLog, trigger, request, ctx));
    }

    private static String answerWithTicketFault(String sideEffectLog, Trigger trigger, Request request, RunnerContextImpl ctx)
            throws Exception {
        Fault observed = trigger.fault();
        String reply = ctx.durableExecute(
                LoggedCall.of(sideEffectLog, request, SupportAgent.CHAT, "reply to '" + request.text + "'"));
        String account = ctx.durableExecute(
                LoggedCall.of(sideEffectLog, request, SupportAgent.lookupId(request), "account of " + request.user));
        String ticketId = SupportAgent.ticketId(request);
        boolean faultNow = trigger.due(request, observed);
        DurableCallable<String> ticket = DurableCallable.of(ticketId, String.class, () -> {
            int run = SideEffectLog.record(sideEffectLog, request.id, ticketId);
            String opened = "ticket for " + request.id + " (run " + run + ")";
            if (faultNow) {
                observed.setOff();
            }
            return opened;
        }, () -> {
            observed.reconciled++;
            Integer runs = SideEffectLog.counts(Path.of(sideEffectLog)).get(request.id + "/" + ticketId);
            return runs == null ? null : "ticket for " + request.id + " (run " + runs + ")";
        });
        String opened;
        try {
            opened = ctx.durableExecute(ticket);
        } catch (JournalException e) {
            observed.callFailure = e;
            observed.slotAfterFailure = ctx.getCallResultFieldsAt(2);
            observed.recover();
            throw e;
        }
        return request.id + ": " + reply + " | " + account + " | " + opened;
    }

    /**
     * Runs the job with the action {@code agentOfTrigger} makes for the trigger of {@code fault}
     * at request {@code at}, under the run id {@code fault} is registered by.
     */
    private static AgentJob.Outcome runJob(AgentJob.Settings settings, String at, Fault fault,
            Function<Trigger, AgentAction<Request, String>> agentOfTrigger) throws Exception {
        try (RunRegistry.Registration<Fault> run = RUNS.register(fault)) {
            settings.agent = agentOfTrigger.apply(new Trigger(at, run.id()));
            return DemoJobs.run(settings);
        }
    }
}
