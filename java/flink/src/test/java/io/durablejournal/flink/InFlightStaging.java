package io.durablejournal.flink;

import io.durablejournal.ActionState;
import io.durablejournal.DurableCallable;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.SideEffectLog;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.testing.BurstSource;
import io.durablejournal.testing.CheckpointWitness;
import io.durablejournal.testing.DecoratedStores;
import io.durablejournal.testing.ForwardingStore;
import io.durablejournal.testing.OnceFlag;
import io.durablejournal.testing.RunRegistry;
import java.nio.file.Path;
import java.nio.file.Paths;
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
    static final class Probe implements BurstSource.Run {
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
        /** The first checkpoint triggered after {@link #readyForWitness()} held; the blocked action waits for it to complete. */
        private final CheckpointWitness witness = new CheckpointWitness();
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
        @Override
        public boolean readyForWitness() {
            return blockedChatDone.getCount() == 0 && completed.containsAll(mustComplete) && seen.containsAll(mustBeSeen);
        }

        @Override
        public CheckpointWitness witness() {
            return witness;
        }

        /** The source emits {@code request}. */
        Request emitted(Request request) {
            sourceEmissions.computeIfAbsent(request.id, id -> new AtomicInteger()).incrementAndGet();
            return request;
        }

        synchronized void markCrashInjected() {
            crashInjected = true;
            notifyAll();
        }

        /** Until the crash was injected (in this or an earlier attempt) or {@code source} is cancelled. */
        @Override
        public synchronized void holdSource(BurstSource<?> source) throws InterruptedException {
            while (!crashInjected && source.isRunning()) {
                wait();
            }
        }

        @Override
        public synchronized void sourceCancelled() {
            notifyAll();
        }

        int bodyRuns(String requestId) {
            AtomicInteger runs = bodyRuns.get(requestId);
            return runs == null ? 0 : runs.get();
        }
    }

    /** Request {@code i}: four users, each with every fourth request. */
    static Request request(int i) {
        return new Request(String.format("req-%02d", i), "user-" + (i % 4), "question " + i);
    }

    /**
     * The run's requests, all at once; the source stays up until the crash was injected. It names
     * the first checkpoint whose snapshot starts after the probe is {@link Probe#readyForWitness()},
     * and the blocked action is released when that checkpoint has completed.
     */
    static BurstSource<Request> source(String runId, int count) {
        return new BurstSource<>(id -> RUNS.of(id), runId, count, i -> RUNS.of(runId).emitted(request(i)));
    }

    /**
     * A chat and two tool calls per request, each a side effect appended to a file outside
     * Flink (as {@link SupportAgent}, with its answers). The blocked request waits after its chat
     * for {@link Probe#witness} to complete, makes its first tool call, and the first
     * time ({@link OnceFlag}) crashes there.
     */
    static final class InFlightAgent implements AgentAction<Request, String> {
        private static final long serialVersionUID = 1L;

        /** In the run's work directory: the side effects, one line each, and the crash-once flag. */
        static final String SIDE_EFFECT_LOG = "side-effects.log";
        static final String CRASH_FLAG = "crash-injected";

        private final String runId;
        private final String workDir;

        InFlightAgent(String runId, Path workDir) {
            this.runId = runId;
            this.workDir = workDir.toString();
        }

        private String fileOfRun(String name) {
            return Paths.get(workDir, name).toString();
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
                probe.witness().awaitCompleted();
                if (probe.completedWhileBlocked == null) {
                    probe.completedWhileBlocked = Set.copyOf(probe.completed);
                }
            }
            String account = ctx.durableExecute(call(request, SupportAgent.lookupId(request), "account of " + request.user));
            if (blocked && OnceFlag.takeFirst(fileOfRun(CRASH_FLAG))) {
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
            String log = fileOfRun(SIDE_EFFECT_LOG);
            return DurableCallable.of(id, String.class, () -> value + " (run " + SideEffectLog.record(log, request.id, id) + ")");
        }
    }

    /** Passes each answer on, recording in the run's probe that it has left the async operator (chained right after it). */
    static MapFunction<String, String> seenDownstream(String runId) {
        return answer -> {
            RUNS.of(runId).seen.add(answer.substring(0, answer.indexOf(':')));
            return answer;
        };
    }

    /** The file stores under {@code baseDirectory}, reporting to the probe each entry stored as completed. */
    static ActionStateStoreFactory observedFileStores(String baseDirectory, String runId) {
        return new DecoratedStores(ActionStateStoreFactory.fileStores(baseDirectory), (store, scope) -> new ObservedStore(store, runId));
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
