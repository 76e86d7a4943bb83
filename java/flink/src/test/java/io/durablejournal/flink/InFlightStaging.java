package io.durablejournal.flink;

import io.durablejournal.ActionState;
import io.durablejournal.DurableCallable;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.SideEffectLog;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.testing.CheckpointedPositionSource;
import io.durablejournal.testing.ForwardingStore;
import io.durablejournal.testing.OnceFlag;
import io.durablejournal.testing.RunRegistry;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * The pieces {@link AsyncInFlightCheckpointTest} stages its failover with. They run inside the
 * MiniCluster in this JVM and meet in a {@link Probe} found by run id in {@link #RUNS}.
 * Everything waits on latches and monitors; nothing sleeps.
 */
final class InFlightStaging {
    /** The probe of each run under way. */
    static final RunRegistry<Probe> RUNS = new RunRegistry<>();

    private InFlightStaging() {}

    /** What one run observed and the latches that order it. */
    static final class Probe {
        final String blockedId;
        /** Requests whose actions must have completed (entry marked completed, or body returned without a journal). */
        final Set<String> mustComplete;
        /** Requests whose answers must have left the async operator (seen downstream). */
        final Set<String> mustBeSeen;
        /** "key/seq" of a store entry -> request id. */
        final Map<String, String> requestOfEntry;
        final boolean completionFromStore;

        final Set<String> completed = ConcurrentHashMap.newKeySet();
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        final Map<String, AtomicInteger> bodyRuns = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> sourceEmissions = new ConcurrentHashMap<>();
        final CountDownLatch blockedChatDone = new CountDownLatch(1);
        /** Released once a checkpoint triggered after {@link #ready()} held has completed. */
        final CountDownLatch checkpointCompletedAfterReady = new CountDownLatch(1);
        volatile long witnessCheckpoint = -1;
        /** What had completed when the blocked action was released (it was in flight all along). */
        volatile Set<String> completedWhileBlocked;
        private boolean crashInjected;

        Probe(String blockedId, Set<String> mustComplete, Set<String> mustBeSeen, Map<String, String> requestOfEntry,
                boolean completionFromStore) {
            this.blockedId = blockedId;
            this.mustComplete = mustComplete;
            this.mustBeSeen = mustBeSeen;
            this.requestOfEntry = requestOfEntry;
            this.completionFromStore = completionFromStore;
        }

        /**
         * The blocked action has made its chat call, every other action that can complete while
         * it blocks has completed, and every answer not queued behind it has left the async
         * operator: the next checkpoint holds exactly the blocked record and those behind it.
         */
        boolean ready() {
            return blockedChatDone.getCount() == 0 && completed.containsAll(mustComplete) && seen.containsAll(mustBeSeen);
        }

        synchronized void markCrashInjected() {
            crashInjected = true;
            notifyAll();
        }

        /** Until the crash was injected (in this or an earlier attempt) or {@code source} is cancelled. */
        synchronized void awaitCrash(BurstSource source) throws InterruptedException {
            while (!crashInjected && source.isRunning()) {
                wait();
            }
        }

        synchronized void wakeUp() {
            notifyAll();
        }

        int bodyRuns(String requestId) {
            AtomicInteger runs = bodyRuns.get(requestId);
            return runs == null ? 0 : runs.get();
        }
    }

    /**
     * Emits all requests at once under one hold of the checkpoint lock (no checkpoint falls
     * between them), then stays up until the crash was injected, so that it takes part in (and
     * sees) every checkpoint until then. Its position is checkpointed: after the restore it emits
     * nothing again. It names the first checkpoint whose snapshot starts after the probe is
     * {@link Probe#ready()}, and releases the blocked action when that checkpoint has completed.
     */
    static final class BurstSource extends CheckpointedPositionSource<Request> {
        private static final long serialVersionUID = 1L;

        private final String runId;
        private final int count;

        BurstSource(String runId, int count) {
            this.runId = runId;
            this.count = count;
        }

        static Request request(int i) {
            return new Request(String.format("req-%02d", i), "user-" + (i % 4), "question " + i);
        }

        @Override
        public void run(SourceContext<Request> ctx) throws Exception {
            Probe probe = RUNS.of(runId);
            synchronized (ctx.getCheckpointLock()) {
                emitUpTo(ctx, count, i -> {
                    Request request = request(i);
                    probe.sourceEmissions.computeIfAbsent(request.id, id -> new AtomicInteger()).incrementAndGet();
                    return request;
                });
            }
            probe.awaitCrash(this);
        }

        @Override
        protected void afterSnapshot(long checkpointId) {
            Probe probe = RUNS.of(runId);
            if (probe.witnessCheckpoint < 0 && probe.ready()) {
                probe.witnessCheckpoint = checkpointId;
            }
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Probe probe = RUNS.of(runId);
            long witness = probe.witnessCheckpoint;
            if (witness >= 0 && checkpointId >= witness) {
                probe.checkpointCompletedAfterReady.countDown();
            }
        }

        @Override
        protected void afterCancel() {
            RUNS.of(runId).wakeUp();
        }
    }

    /**
     * A chat and two tool calls per request, each a side effect appended to a file outside
     * Flink (as {@link SupportAgent}, with its answers). The blocked request waits after its chat
     * for {@link Probe#checkpointCompletedAfterReady}, makes its first tool call, and the first
     * time ({@link OnceFlag}) crashes there.
     */
    static final class InFlightAgent implements AgentAction<Request, String> {
        private static final long serialVersionUID = 1L;

        private final String runId;
        private final String sideEffectLog;
        private final String crashFlag;

        InFlightAgent(String runId, String sideEffectLog, String crashFlag) {
            this.runId = runId;
            this.sideEffectLog = sideEffectLog;
            this.crashFlag = crashFlag;
        }

        @Override
        public String run(Request request, RunnerContextImpl ctx) throws Exception {
            Probe probe = RUNS.of(runId);
            probe.bodyRuns.computeIfAbsent(request.id, id -> new AtomicInteger()).incrementAndGet();
            boolean blocked = request.id.equals(probe.blockedId);
            String reply = ctx.durableExecute(call(request, SupportAgent.CHAT, "reply to '" + request.text + "'"));
            if (blocked) {
                probe.blockedChatDone.countDown();
                // In flight until a checkpoint taken after the chat call has completed (at once on the re-run).
                probe.checkpointCompletedAfterReady.await();
                if (probe.completedWhileBlocked == null) {
                    probe.completedWhileBlocked = Set.copyOf(probe.completed);
                }
            }
            String account = ctx.durableExecute(call(request, SupportAgent.lookupId(request), "account of " + request.user));
            if (blocked && OnceFlag.takeFirst(crashFlag)) {
                probe.markCrashInjected();
                throw new SupportAgent.InjectedCrash("injected crash in " + request.id + " after 2 calls, in flight across a checkpoint");
            }
            String ticket = ctx.durableExecute(call(request, SupportAgent.ticketId(request), "ticket for " + request.id));
            if (!probe.completionFromStore) {
                probe.completed.add(request.id);
            }
            return request.id + ": " + reply + " | " + account + " | " + ticket;
        }

        private DurableCallable<String> call(Request request, String id, String value) {
            String log = sideEffectLog;
            return DurableCallable.of(id, String.class, () -> value + " (run " + SideEffectLog.record(log, request.id, id) + ")");
        }
    }

    /** Records each answer that has left the async operator (chained right after it). */
    static final class SeenDownstream implements MapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        private final String runId;

        SeenDownstream(String runId) {
            this.runId = runId;
        }

        @Override
        public String map(String answer) {
            RUNS.of(runId).seen.add(answer.substring(0, answer.indexOf(':')));
            return answer;
        }
    }

    /** The file stores, reporting to the probe each entry stored as completed. */
    static final class ObservedFileStores implements ActionStateStoreFactory {
        private static final long serialVersionUID = 1L;
        private final String baseDirectory;
        private final String runId;

        ObservedFileStores(String baseDirectory, String runId) {
            this.baseDirectory = baseDirectory;
            this.runId = runId;
        }

        @Override
        public ActionStateStore open(int subtaskIndex, int parallelism) throws Exception {
            return new ObservedStore(ActionStateStoreFactory.fileStores(baseDirectory).open(subtaskIndex, parallelism), runId);
        }
    }

    /** A file store of a user's factory, as the operator sees it ({@link ForwardingStore}), that reports completions. */
    static final class ObservedStore extends ForwardingStore {
        private final String runId;

        ObservedStore(ActionStateStore store, String runId) {
            super(store);
            this.runId = runId;
        }

        @Override
        public void put(Object key, long seqNum, String actionName, EventIdentity event, ActionState state) {
            super.put(key, seqNum, actionName, event, state);
            if (state.isCompleted()) {
                Probe probe = RUNS.of(runId);
                String request = probe.requestOfEntry.get(key + "/" + seqNum);
                if (request != null) {
                    probe.completed.add(request);
                }
            }
        }
    }
}
