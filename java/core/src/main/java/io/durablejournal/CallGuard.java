package io.durablejournal;

import java.util.concurrent.Callable;

/**
 * Refuses a durable call begun while another call's body (or a {@code durableExecuteAll} batch)
 * of the same {@link DurableExecutionContext} runs, saying which it is: <i>nested</i> (begun on
 * the thread running that body, or on an executor thread running it) or <i>concurrent</i> (begun
 * on another thread). Neither could be replayed: the journal matches calls by position in the
 * order they complete. One guard per context.
 */
final class CallGuard {
    /**
     * The guard whose call in progress the current thread runs the body of, on an executor
     * ({@link #runAsBody}): a durable call started there is nested, not concurrent.
     */
    private static final ThreadLocal<CallGuard> BODY_RUNNING_FOR = new ThreadLocal<>();

    /**
     * What is running between {@link #begin} and {@link #end} (a durable call or a batch), or null:
     * a durable call begun meanwhile is nested or concurrent, and refused.
     */
    private volatile String callInProgress;
    /** The thread that began {@link #callInProgress}. */
    private volatile Thread callThread;

    /** {@code running} (what a refusal names it: "durable call 'x'") is in progress from now on. */
    void begin(String running) {
        callInProgress = running;
        callThread = Thread.currentThread();
    }

    /** The call in progress recorded its outcome: it no longer is (its thread stays named until {@link #end}). */
    void recorded() {
        callInProgress = null;
    }

    /** The call or batch in progress ended, with its outcome recorded or not. */
    void end() {
        callInProgress = null;
        callThread = null;
    }

    /**
     * Runs the body of the call in progress on the current thread, an executor's: a durable call
     * it starts is then refused as nested rather than as concurrent.
     */
    <T> T runAsBody(Callable<T> body) throws Exception {
        CallGuard outer = BODY_RUNNING_FOR.get();
        BODY_RUNNING_FOR.set(this);
        try {
            return body.call();
        } finally {
            if (outer == null) {
                BODY_RUNNING_FOR.remove();
            } else {
                BODY_RUNNING_FOR.set(outer);
            }
        }
    }

    /** Refuses {@code starting} while a call or batch is in progress, naming why: nesting or concurrency. */
    void refuseWhileCallInProgress(String starting) {
        String running = callInProgress;
        if (running == null) {
            return;
        }
        Thread runner = callThread;
        Thread me = Thread.currentThread();
        if (me == runner || BODY_RUNNING_FOR.get() == this) {
            throw new IllegalStateException(starting + " was started inside the body of " + running
                    + ": nested durable calls are not supported (the journal records calls in the order they "
                    + "complete and matches them by position, so a replay could not find them); make it before "
                    + "or after that call, not inside it");
        }
        throw new IllegalStateException(starting + " was started on thread '" + me.getName() + "' while " + running
                + " runs on thread '" + (runner == null ? "?" : runner.getName()) + "': concurrent durable calls on one "
                + "DurableExecutionContext are not supported (its calls are made one after the other by the thread that "
                + "runs the action, as Flink Agents' runtime allows only the task's mailbox thread; the journal matches "
                + "calls by position, so a replay could not find calls whose order a race decided). Make the calls from "
                + "the action's thread; if this thread was started by that call's body, the call is nested, which is "
                + "not supported either");
    }
}
