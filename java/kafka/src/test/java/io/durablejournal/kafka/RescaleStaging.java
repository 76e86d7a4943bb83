package io.durablejournal.kafka;

import io.durablejournal.ActionState;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.SideEffectLog;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.flink.SubtaskScope;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.EventIdentity;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.source.legacy.SourceFunction;

/**
 * The pieces {@link KafkaRescaleTest} stages its runs with: a job whose actions are in flight
 * across a completed checkpoint when it is cancelled, and the same job restored from that
 * checkpoint at another parallelism. They meet in a {@link Probe} found by run id (static, so the
 * functions Flink deserializes reach it). Everything waits on latches; nothing sleeps.
 */
final class RescaleStaging {
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
    static final class Probe {
        private static final Map<String, Probe> RUNS = new ConcurrentHashMap<>();

        /** True in the first run: held actions stop after their chat and after their first tool call. */
        final boolean holding;
        final String sideEffectLog;
        final CountDownLatch chatsDone = new CountDownLatch(HELD);
        final CountDownLatch toolsDone = new CountDownLatch(HELD);
        /** Released once a checkpoint taken while every held action was in flight has completed. */
        final CountDownLatch checkpointWithHeldInFlight = new CountDownLatch(1);
        /** Never released: held actions stay in flight until the job is cancelled. */
        final CountDownLatch never = new CountDownLatch(1);
        /** Requests that can run to completion in the first run. */
        final Set<String> mustComplete;
        final Set<String> completed = ConcurrentHashMap.newKeySet();
        final Map<String, String> answers = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> bodyRuns = new ConcurrentHashMap<>();
        /** Actions that ran in a subtask whose key groups do not hold their key. */
        final Set<String> ranOutsideOwner = ConcurrentHashMap.newKeySet();
        volatile long witnessCheckpoint = -1;
        private boolean cancelled;

        Probe(boolean holding, String sideEffectLog, Set<String> mustComplete) {
            this.holding = holding;
            this.sideEffectLog = sideEffectLog;
            this.mustComplete = mustComplete;
        }

        static void register(String runId, Probe probe) {
            RUNS.put(runId, probe);
        }

        static Probe of(String runId) {
            Probe probe = RUNS.get(runId);
            if (probe == null) {
                throw new IllegalStateException("no probe for run " + runId);
            }
            return probe;
        }

        static void unregister(String runId) {
            RUNS.remove(runId);
        }

        boolean ready() {
            return chatsDone.getCount() == 0 && completed.containsAll(mustComplete);
        }

        synchronized void awaitCancel(RequestsSource source) throws InterruptedException {
            while (!cancelled && source.running) {
                wait();
            }
        }

        synchronized void cancel() {
            cancelled = true;
            notifyAll();
        }
    }

    /**
     * Emits every request at once under the checkpoint lock, then in the first run stays up until
     * cancelled, so that it takes part in every checkpoint; its position is checkpointed, so the
     * restored run emits nothing. It names the first checkpoint whose snapshot starts once the
     * probe is {@link Probe#ready()} and releases the held actions when that one completed.
     */
    static final class RequestsSource implements SourceFunction<Request>, CheckpointedFunction, CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final String runId;
        private transient ListState<Integer> positionState;
        private volatile int position;
        volatile boolean running = true;

        RequestsSource(String runId) {
            this.runId = runId;
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            positionState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("position", Types.INT));
            for (Integer restored : positionState.get()) {
                position = restored;
            }
        }

        @Override
        public void run(SourceContext<Request> ctx) throws Exception {
            synchronized (ctx.getCheckpointLock()) {
                while (position < REQUESTS) {
                    ctx.collect(request(position));
                    position++;
                }
            }
            Probe probe = Probe.of(runId);
            if (probe.holding) {
                probe.awaitCancel(this);
            }
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            positionState.update(Collections.singletonList(position));
            Probe probe = Probe.of(runId);
            if (probe.holding && probe.witnessCheckpoint < 0 && probe.ready()) {
                probe.witnessCheckpoint = context.getCheckpointId();
            }
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Probe probe = Probe.of(runId);
            if (probe.witnessCheckpoint >= 0 && checkpointId >= probe.witnessCheckpoint) {
                probe.checkpointWithHeldInFlight.countDown();
            }
        }

        @Override
        public void cancel() {
            running = false;
            Probe.of(runId).cancel();
        }
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
            Probe probe = Probe.of(runId);
            probe.bodyRuns.computeIfAbsent(request.id, id -> new AtomicInteger()).incrementAndGet();
            boolean hold = probe.holding && held(request);
            String reply = ctx.durableExecute(call(probe, request, SupportAgent.CHAT, "reply to '" + request.text + "'"));
            if (hold) {
                probe.chatsDone.countDown();
                probe.checkpointWithHeldInFlight.await();
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
            String log = probe.sideEffectLog;
            return DurableCallable.of(id, String.class, () -> value + " (run " + SideEffectLog.record(log, request.id, id) + ")");
        }
    }

    /** The answer of a request whose every call ran once. */
    static String expectedAnswer(Request request) {
        return SupportAgent.expectedAnswer(request);
    }

    /** Records each answer that left the async operator. */
    static final class Answers implements MapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        private final String runId;

        Answers(String runId) {
            this.runId = runId;
        }

        @Override
        public String map(String answer) {
            Probe.of(runId).answers.put(answer.substring(0, answer.indexOf(':')), answer);
            return answer;
        }
    }

    /** Kafka stores that report an action run in a subtask that does not own its key. */
    static final class Observed implements ActionStateStoreFactory {
        private static final long serialVersionUID = 1L;
        private final ActionStateStoreFactory stores;
        private final String runId;

        Observed(ActionStateStoreFactory stores, String runId) {
            this.stores = stores;
            this.runId = runId;
        }

        @Override
        public ActionStateStore open(int subtaskIndex, int parallelism) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ActionStateStore open(SubtaskScope scope) throws Exception {
            return new Watched(stores.open(scope), scope, runId);
        }

        @Override
        public boolean restoresAtAnyParallelism() {
            return stores.restoresAtAnyParallelism();
        }
    }

    static final class Watched implements ActionStateStore {
        private final ActionStateStore store;
        private final SubtaskScope scope;
        private final String runId;

        Watched(ActionStateStore store, SubtaskScope scope, String runId) {
            this.store = store;
            this.scope = scope;
            this.runId = runId;
        }

        @Override
        public DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event, ActionState initial) {
            int keyGroup = scope.keyGroupOf(key);
            if (keyGroup < scope.firstKeyGroup() || keyGroup > scope.lastKeyGroup()) {
                Probe.of(runId).ranOutsideOwner.add(key + "/" + seqNum);
            }
            return store.openContext(key, seqNum, actionName, event, initial);
        }

        @Override
        public void put(Object key, long seqNum, String actionName, EventIdentity event, ActionState state) {
            store.put(key, seqNum, actionName, event, state);
        }

        @Override
        public ActionState get(Object key, long seqNum, String actionName, EventIdentity event) {
            return store.get(key, seqNum, actionName, event);
        }

        @Override
        public void rebuildState(List<byte[]> recoveryMarkers) {
            store.rebuildState(recoveryMarkers);
        }

        @Override
        public void pruneState(Object key, long seqNumUpTo) {
            store.pruneState(key, seqNumUpTo);
        }

        @Override
        public void pruneStateAt(Object key, long seqNum) {
            store.pruneStateAt(key, seqNum);
        }

        @Override
        public byte[] getRecoveryMarker() {
            return store.getRecoveryMarker();
        }

        @Override
        public void close() {
            store.close();
        }
    }
}
