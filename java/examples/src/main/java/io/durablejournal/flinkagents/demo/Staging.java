package io.durablejournal.flinkagents.demo;

import io.durablejournal.demo.FailoverStaging;
import io.durablejournal.demo.RequestSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one run of the demo job observed, and the crash it injects: shared by the source, the
 * agent's actions and the test or demo that started the run, all in this JVM (found by run id;
 * static, so that the functions Flink deserializes reach it). A job jar that ships the agent
 * must not contain this class, so that the job's class loader finds the application's copy.
 * Everything waits on monitors; nothing sleeps.
 */
public final class Staging {
    private static final Map<String, Staging> RUNS = new ConcurrentHashMap<>();

    /** The request whose second action crashes once, after its first tool call; null for none. */
    final String crashRequestId;
    /** Its index: the requests below it are answered before it crashes. */
    private final int crashIndex;
    /** Runs right before the crash; null: nothing. */
    private final Runnable atCrash;

    private final Set<String> answered = ConcurrentHashMap.newKeySet();
    private final AtomicInteger callsRequested = new AtomicInteger();
    private final AtomicInteger callsExecuted = new AtomicInteger();
    private final Map<String, AtomicInteger> actionRuns = new ConcurrentHashMap<>();
    private final Set<String> agentLoaders = ConcurrentHashMap.newKeySet();
    private final List<String> sinkReceived = Collections.synchronizedList(new ArrayList<>());
    private boolean crashInjected;

    /** @param crashIndex the request that crashes once; negative: none */
    Staging(int crashIndex, Runnable atCrash) {
        this.crashIndex = crashIndex;
        this.crashRequestId = crashIndex >= 0 ? SupportRequest.id(crashIndex) : null;
        this.atCrash = atCrash;
    }

    static void register(String runId, Staging staging) {
        RUNS.put(runId, staging);
    }

    /** The staging of a run. */
    public static Staging of(String runId) {
        Staging staging = RUNS.get(runId);
        if (staging == null) {
            throw new IllegalStateException("no staging for run " + runId);
        }
        return staging;
    }

    static void unregister(String runId) {
        RUNS.remove(runId);
    }

    /** The body of {@code action} started, in an agent class loaded by {@code agentLoader}. */
    public void actionStarted(String action, ClassLoader agentLoader) {
        actionRuns.computeIfAbsent(action, a -> new AtomicInteger()).incrementAndGet();
        agentLoaders.add(describe(agentLoader));
    }

    /** A class loader as {@code <identity>:<class>}. */
    static String describe(ClassLoader loader) {
        return System.identityHashCode(loader) + ":" + loader.getClass().getName();
    }

    /** An action asked for a durable call (replayed from the journal or executed). */
    public void callRequested() {
        callsRequested.incrementAndGet();
    }

    /** A durable call executed its side effect. */
    public void callExecuted() {
        callsExecuted.incrementAndGet();
    }

    /** The request's final action sent its answer. */
    public void answered(String requestId) {
        answered.add(requestId);
        synchronized (this) {
            notifyAll();
        }
    }

    /** Whether every request below {@code index} has been answered (by this or an earlier attempt). */
    boolean answeredBelow(int index) {
        for (int i = 0; i < index; i++) {
            if (!answered.contains(SupportRequest.id(i))) {
                return false;
            }
        }
        return true;
    }

    /** The job's sink received an answer. */
    public void sinkReceived(String answer) {
        sinkReceived.add(answer);
    }

    List<String> answers() {
        synchronized (sinkReceived) {
            return new ArrayList<>(sinkReceived);
        }
    }

    /**
     * True once, for the crash request, after running the {@code atCrash} hook: the caller throws.
     * It first waits until every earlier request is answered: those of the other subtask run in
     * parallel with the crash request, and the story (what the checkpoint covers, what completed
     * after it, the one action interrupted) must not depend on which subtask is faster. Earlier
     * requests of the crash request's own subtask are answered already (the operator runs a
     * subtask's actions on one thread, in the order their inputs came), so this never waits on
     * its own thread.
     */
    public synchronized boolean crashNow(String requestId) throws InterruptedException {
        if (crashInjected || !requestId.equals(crashRequestId)) {
            return false;
        }
        while (!answeredBelow(crashIndex)) {
            wait();
        }
        crashInjected = true;
        if (atCrash != null) {
            atCrash.run();
        }
        return true;
    }

    public synchronized boolean crashInjected() {
        return crashInjected;
    }

    /**
     * Until {@code source} is cancelled, which the failover after the crash does; at once when no
     * crash is planned. (Released at the crash itself, the source would race the failover: a
     * request emitted then could run on the other subtask before it is cancelled.)
     */
    synchronized void holdUntilCancelled(RequestSource<?> source) throws InterruptedException {
        while (crashRequestId != null && source.isRunning()) {
            wait();
        }
    }

    synchronized void wakeUp() {
        notifyAll();
    }

    int callsRequested() {
        return callsRequested.get();
    }

    int callsExecuted() {
        return callsExecuted.get();
    }

    Set<String> agentLoaders() {
        return agentLoaders;
    }

    int actionRuns(String action) {
        AtomicInteger runs = actionRuns.get(action);
        return runs == null ? 0 : runs.get();
    }

    /**
     * The run's part in {@link RequestSource}'s staged failover, found by run id in the task's
     * JVM: the gate stages only before the crash (after the restore the requests flow); a
     * checkpoint covers the requests only once they are answered (Flink Agents' operator keeps an
     * action's follow-up events in its state across a barrier); after the burst the source holds
     * the checkpoint lock until the failover cancels it.
     */
    static FailoverStaging failover(String runId) {
        return new FailoverStaging() {
            private static final long serialVersionUID = 1L;

            @Override
            public boolean gateActive() {
                return !of(runId).crashInjected();
            }

            @Override
            public boolean snapshotCovers(int position) {
                return of(runId).answeredBelow(position);
            }

            @Override
            public void afterBurst(RequestSource<?> source) throws InterruptedException {
                of(runId).holdUntilCancelled(source);
            }

            @Override
            public void cancelled() {
                of(runId).wakeUp();
            }
        };
    }
}
