package io.durablejournal.flinkagents;

import io.durablejournal.testing.RunRegistry;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the agents of one test job ran, and the one crash the job stages: shared by the source,
 * the actions and the test in this JVM (the MiniCluster's), found by run id through the agent
 * configuration.
 */
final class JournalRun {
    /** How the action crashes once. */
    enum Crash {
        /** No crash. */
        NONE,
        /** After the calls before the reconcilable one are recorded: a plain exception. */
        AFTER_RECORDED_CALLS,
        /** Inside the reconcilable call's body: an {@link Error}, which no journal records, so its slot stays PENDING. */
        INSIDE_A_CALL,
        /** In {@link EchoAgent}'s second echo, after its durable call is recorded. */
        SECOND_ECHO
    }

    /** Thrown by the staged crash. */
    static final class InjectedCrash extends Error {
        private static final long serialVersionUID = 1L;

        InjectedCrash(String where) {
            super("injected crash " + where);
        }
    }

    private static final RunRegistry<JournalRun> RUNS = new RunRegistry<>();

    private final Map<String, Integer> runs = new TreeMap<>();
    private String id;
    private Crash crash;
    private boolean crashInjected;

    private JournalRun(Crash crash) {
        this.crash = crash;
    }

    /** A new run, registered under an id of its own ({@link #id()}) for its job's agents to find it by. */
    static JournalRun start(Crash crash) {
        JournalRun run = new JournalRun(crash);
        run.id = RUNS.register(run).id();
        return run;
    }

    /** The run id its job's agents find it by ({@link #of}). */
    String id() {
        return id;
    }

    static JournalRun of(String runId) {
        return RUNS.of(runId);
    }

    /** A durable call's body ran; returns {@code result}. */
    synchronized <T> T ran(String call, T result) {
        runs.merge(call, 1, Integer::sum);
        return result;
    }

    /** How many times each body ran. */
    synchronized Map<String, Integer> runs() {
        return new TreeMap<>(runs);
    }

    /** Whether the staged crash happened. */
    synchronized boolean crashed() {
        return crashInjected;
    }

    /** Whether a crash is staged and has not happened yet. */
    synchronized boolean crashPending() {
        return crash != Crash.NONE;
    }

    /** Waits until the crash happened or {@code stillWaiting} says stop; woken by {@link #wakeUp}. */
    synchronized void awaitCrash(java.util.function.BooleanSupplier stillWaiting) throws InterruptedException {
        while (crash != Crash.NONE && stillWaiting.getAsBoolean()) {
            wait();
        }
    }

    synchronized void wakeUp() {
        notifyAll();
    }

    void crashAfterRecordedCalls() {
        if (takeCrash(Crash.AFTER_RECORDED_CALLS)) {
            throw new IllegalStateException("injected crash after the recorded calls");
        }
    }

    void crashInsideACall() {
        if (takeCrash(Crash.INSIDE_A_CALL)) {
            throw new InjectedCrash("inside a reconcilable call");
        }
    }

    /** Crashes the second echo once, after its call is recorded. */
    void crashInSecondEcho(int echoRuns) {
        if (echoRuns == 2 && takeCrash(Crash.SECOND_ECHO)) {
            throw new IllegalStateException("injected crash in the second echo");
        }
    }

    private synchronized boolean takeCrash(Crash where) {
        if (crash != where) {
            return false;
        }
        crash = Crash.NONE;
        crashInjected = true;
        return true;
    }
}
