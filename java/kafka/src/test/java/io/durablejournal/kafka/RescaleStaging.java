package io.durablejournal.kafka;

import io.durablejournal.ActionState;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.flink.SubtaskScope;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.testing.BurstSource;
import io.durablejournal.testing.CheckpointWitness;
import io.durablejournal.testing.DecoratedStores;
import io.durablejournal.testing.ForwardingStore;
import io.durablejournal.testing.RunRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * The pieces {@link KafkaRescaleTest} stages its runs with: a job whose actions are in flight
 * across a completed checkpoint when it is cancelled, and the same job restored from that
 * checkpoint at another parallelism. They meet in a {@link Probe} found by run id in {@link #RUNS}.
 * Everything waits on latches; nothing sleeps.
 */
final class RescaleStaging {
    /** The probe of each run under way. */
    static final RunRegistry<Probe> RUNS = new RunRegistry<>();
    static final int REQUESTS = 16;
    static final int USERS = 8;
    /** The first request of users 0..5 is held in flight; users 6 and 7 are never held. */
    static final int HELD = 6;

    private RescaleStaging() {}

    static Request request(int i) {
        return new Request(String.format("req-%02d", i), "user-" + (i % USERS), "question " + i);
    }

    static boolean held(Request request) {
        int i = Integer.parseInt(request.id.substring(4));
        return i < HELD;
    }

    /** What one run observed and the latches that order it. */
    static final class Probe implements BurstSource.Run {
        /** True in the first run: held actions stop after their chat and after their first tool call. */
        final boolean holding;
        final String sideEffectLog;
        final CountDownLatch chatsDone = new CountDownLatch(HELD);
        final CountDownLatch toolsDone = new CountDownLatch(HELD);
        /** The first checkpoint taken while every held action was in flight; they wait for it to complete. */
        private final CheckpointWitness witness = new CheckpointWitness();
        /** Never released: held actions stay in flight until the job is cancelled. */
        final CountDownLatch never = new CountDownLatch(1);
        /** Requests that can run to completion in the first run. */
        final Set<String> mustComplete;
        final Set<String> completed = ConcurrentHashMap.newKeySet();
        final Map<String, String> answers = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> bodyRuns = new ConcurrentHashMap<>();
        /** Actions that ran in a subtask whose key groups do not hold their key. */
        final Set<String> ranOutsideOwner = ConcurrentHashMap.newKeySet();
        private boolean cancelled;

        Probe(boolean holding, String sideEffectLog, Set<String> mustComplete) {
            this.holding = holding;
            this.sideEffectLog = sideEffectLog;
            this.mustComplete = mustComplete;
        }

        @Override
        public boolean readyForWitness() {
            return holding && chatsDone.getCount() == 0 && completed.containsAll(mustComplete);
        }

        @Override
        public CheckpointWitness witness() {
            return witness;
        }

        /** In the first run, until the source is cancelled; at once in the restored one. */
        @Override
        public synchronized void holdSource(BurstSource<?> source) throws InterruptedException {
            while (holding && !cancelled && source.isRunning()) {
                wait();
            }
        }

        @Override
        public synchronized void sourceCancelled() {
            cancelled = true;
            notifyAll();
        }
    }

    /**
     * The run's requests, all at once; in the first run the source stays up until cancelled, so
     * that it takes part in every checkpoint. It names the first checkpoint whose snapshot starts
     * once the probe is {@link Probe#readyForWitness()}; the held actions go on when that one completed.
     */
    static BurstSource<Request> source(String runId) {
        return new BurstSource<>(id -> RUNS.of(id), runId, REQUESTS, RescaleStaging::request);
    }

    /**
     * A chat and two tool calls per request, each a side effect in the {@link SideEffectLog}. In
     * the first run a held request makes its chat, waits for a completed checkpoint, makes its
     * first tool call (after that checkpoint) and stays in flight until the job is cancelled.
     */
    static final class HeldAgent implements AgentAction<Request, String> {
        private static final long serialVersionUID = 1L;
        private final String runId;

        HeldAgent(String runId) {
            this.runId = runId;
        }

        @Override
        public String run(Request request, RunnerContextImpl ctx) throws Exception {
            Probe probe = RUNS.of(runId);
            probe.bodyRuns.computeIfAbsent(request.id, id -> new AtomicInteger()).incrementAndGet();
            boolean hold = probe.holding && held(request);
            String reply = ctx.durableExecute(call(probe, request, SupportAgent.CHAT, "reply to '" + request.text + "'"));
            if (hold) {
                probe.chatsDone.countDown();
                probe.witness().awaitCompleted();
            }
            String account = ctx.durableExecute(call(probe, request, SupportAgent.lookupId(request), "account of " + request.user));
            if (hold) {
                probe.toolsDone.countDown();
                probe.never.await();
            }
            String ticket = ctx.durableExecute(call(probe, request, SupportAgent.ticketId(request), "ticket for " + request.id));
            probe.completed.add(request.id);
            return request.id + ": " + reply + " | " + account + " | " + ticket;
        }

        private static DurableCallable<String> call(Probe probe, Request request, String id, String value) {
            return LoggedCall.of(probe.sideEffectLog, request, id, value);
        }
    }

    /** The answer of a request whose every call ran once. */
    static String expectedAnswer(Request request) {
        return SupportAgent.expectedAnswer(request);
    }

    /** Passes each answer on, recording it in the run's probe by request id. */
    static MapFunction<String, String> answers(String runId) {
        return answer -> {
            RUNS.of(runId).answers.put(answer.substring(0, answer.indexOf(':')), answer);
            return answer;
        };
    }

    /** {@code stores}, reporting an action run in a subtask that does not own its key. */
    static ActionStateStoreFactory observed(ActionStateStoreFactory stores, String runId) {
        return new DecoratedStores(stores, (store, scope) -> new Watched(store, scope, runId));
    }

    /** The Kafka store of one subtask, as a user's decorator of it: prunes exactly as the store does. */
    static final class Watched extends ForwardingStore {
        private final SubtaskScope scope;
        private final String runId;

        Watched(ActionStateStore store, SubtaskScope scope, String runId) {
            super(store);
            this.scope = scope;
            this.runId = runId;
        }

        @Override
        public DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event, ActionState initial) {
            int keyGroup = scope.keyGroupOf(key);
            if (keyGroup < scope.firstKeyGroup() || keyGroup > scope.lastKeyGroup()) {
                RUNS.of(runId).ranOutsideOwner.add(key + "/" + seqNum);
            }
            return super.openContext(key, seqNum, actionName, event, initial);
        }

        @Override
        public void pruneStateAt(Object key, long seqNum) {
            inner().pruneStateAt(key, seqNum);
        }
    }
}
