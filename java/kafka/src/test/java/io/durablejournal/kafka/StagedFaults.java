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
 * before a request's calls ({@link FaultBeforeRequest}) or while a call completes ({@link
 * FaultWhenACallCompletes}). The fault itself (stop a broker, kill a leader, kill the cluster) is
 * a {@link Step} of the test's; what it did is noted in the run's {@link Fault}.
 */
final class StagedFaults {
    /** The fault of each job under way. */
    private static final RunRegistry<Fault> RUNS = new RunRegistry<>();

    private StagedFaults() {}

    /** What a job's fault did. */
    static final class Fault {
        volatile boolean done;
        /** A failure to bring Kafka back on the background thread ({@link StagedFaults#inBackground}). */
        volatile Throwable restartFailure;
        volatile JournalException callFailure;
        volatile Object[] slotAfterFailure;
        volatile int reconciled;
        /** The brokers killed, for the test to restart. */
        final List<Integer> killed = new CopyOnWriteArrayList<>();
    }

    /** A step of a fault, run in this JVM by the job's action (hence serializable). */
    interface Step extends Serializable {
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

    /** An action of the agent job that sets off its fault once, for request {@code at}. */
    private abstract static class FaultAtRequest implements AgentAction<Request, String> {
        private static final long serialVersionUID = 1L;
        private final String at;
        private final String runId;
        private final Step fault;

        FaultAtRequest(String at, String runId, Step fault) {
            this.at = at;
            this.runId = runId;
            this.fault = fault;
        }

        /** What the run's fault did so far. */
        final Fault observed() {
            return RUNS.of(runId);
        }

        /** Whether {@code request} is the one to set the fault off for, and it was not set off yet. */
        final boolean faultDue(Request request, Fault observed) {
            return request.id.equals(at) && !observed.done;
        }

        final void setOff(Fault observed) throws Exception {
            observed.done = true;
            fault.run(observed);
        }
    }

    /** The demo's agent; when request {@code at} starts, {@code fault} runs once, then the request. */
    private static final class FaultBeforeRequest extends FaultAtRequest {
        private static final long serialVersionUID = 1L;
        private final SupportAgent agent;

        FaultBeforeRequest(SupportAgent agent, String at, String runId, Step fault) {
            super(at, runId, fault);
            this.agent = agent;
        }

        @Override
        public String run(Request request, RunnerContextImpl ctx) throws Exception {
            Fault observed = observed();
            if (faultDue(request, observed)) {
                setOff(observed);
            }
            return agent.run(request, ctx);
        }
    }

    /**
     * Three calls per request, the last one reconcilable (a ticket: the reconciler looks it up in
     * the side-effect log). For request {@code at}, the ticket's body sets off {@code fault} once it
     * has opened the ticket, so its completion cannot be recorded; the agent notes the failure and
     * the journal's slot, runs {@code recovery} and fails the action (the job restarts).
     */
    private static final class FaultWhenACallCompletes extends FaultAtRequest {
        private static final long serialVersionUID = 1L;
        private final String sideEffectLog;
        private final Step recovery;

        FaultWhenACallCompletes(String sideEffectLog, String at, String runId, Step fault, Step recovery) {
            super(at, runId, fault);
            this.sideEffectLog = sideEffectLog;
            this.recovery = recovery;
        }

        @Override
        public String run(Request request, RunnerContextImpl ctx) throws Exception {
            Fault observed = observed();
            String reply = ctx.durableExecute(
                    LoggedCall.of(sideEffectLog, request, SupportAgent.CHAT, "reply to '" + request.text + "'"));
            String account = ctx.durableExecute(
                    LoggedCall.of(sideEffectLog, request, SupportAgent.lookupId(request), "account of " + request.user));
            String ticketId = SupportAgent.ticketId(request);
            boolean faultNow = faultDue(request, observed);
            DurableCallable<String> ticket = DurableCallable.of(ticketId, String.class, () -> {
                int run = SideEffectLog.record(sideEffectLog, request.id, ticketId);
                String opened = "ticket for " + request.id + " (run " + run + ")";
                if (faultNow) {
                    setOff(observed);
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
                recovery.run(observed);
                throw e;
            }
            return request.id + ": " + reply + " | " + account + " | " + opened;
        }
    }

    /**
     * Runs the demo's agent job of {@code settings} ({@link DemoJobs#run}) with its support agent;
     * when request {@code at} starts, {@code fault} runs once, noting in {@code observed}.
     */
    static AgentJob.Outcome runWithFaultBeforeRequest(AgentJob.Settings settings, String at, Fault observed, Step fault)
            throws Exception {
        return runJob(settings, observed, runId -> new FaultBeforeRequest(settings.supportAgent(), at, runId, fault));
    }

    /**
     * Runs the demo's agent job of {@code settings} with {@link FaultWhenACallCompletes}: {@code
     * fault} runs once inside the ticket call of request {@code at}, {@code recovery} when that
     * call has failed.
     */
    static AgentJob.Outcome runWithFaultWhenACallCompletes(AgentJob.Settings settings, String at, Fault observed, Step fault,
            Step recovery) throws Exception {
        return runJob(settings, observed,
                runId -> new FaultWhenACallCompletes(settings.sideEffectLog().toString(), at, runId, fault, recovery));
    }

    /** Runs the job with the action {@code agentOfRun} makes for the run id under which {@code observed} is registered. */
    private static AgentJob.Outcome runJob(AgentJob.Settings settings, Fault observed,
            Function<String, AgentAction<Request, String>> agentOfRun) throws Exception {
        try (RunRegistry.Registration<Fault> run = RUNS.register(observed)) {
            settings.agent = agentOfRun.apply(run.id());
            return DemoJobs.run(settings);
        }
    }
}
