package io.durablejournal.store;

import io.durablejournal.CallInterruptedException;
import io.durablejournal.DurableCall;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import java.io.PrintStream;
import java.nio.file.Paths;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * One action with one durable call to a {@link DedupService}, journaled in a file store. Run as a
 * child JVM it stops at a named boundary of the call, says {@code AT <boundary>} and waits to be
 * killed; run again over the same store (boundary {@code NONE}) it finishes and says what the
 * call answered.
 *
 * <p>Boundaries: {@code BEFORE_CALL} (the action runs, the call has not begun: no record of it),
 * {@code BODY_START} (the call began: an at-most-once call's PENDING record is acknowledged; the
 * service was not called), {@code IN_SERVICE} (the service applied the effect and has not
 * answered), {@code BODY_END} (the body is about to return: its outcome is not recorded), {@code
 * AFTER_CALL} (the outcome is acknowledged).
 *
 * <p>Arguments: store directory, service directory, {@code DEFAULT}, {@code AT_MOST_ONCE} or
 * {@code RECONCILED} (at most once, with a reconciler that asks the service), boundary.
 */
public final class CallBoundaryProcess {
    static final EventIdentity EVENT = EventIdentity.occurrence("occ:0123456789abcdef0123456789abcdef");

    private final DedupService service;
    private final String boundary;
    private final PrintStream out;

    private CallBoundaryProcess(DedupService service, String boundary, PrintStream out) {
        this.service = service;
        this.boundary = boundary;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        run(args[0], args[1], args[2], args[3], System.out);
    }

    /** Runs the action; returns what the call answered ({@code RESULT ...} or {@code INTERRUPTED <key>}). */
    static String run(String storeDir, String serviceDir, String mode, String boundary, PrintStream out) throws Exception {
        CallBoundaryProcess action = new CallBoundaryProcess(new DedupService(Paths.get(serviceDir)), boundary, out);
        try (NativeActionStateStore store = ActionStateStores.openFileStore(Paths.get(storeDir));
                DurableExecutionContext ctx = store.openContext("user-1", 0, "act", EVENT, null)) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            action.stop("BEFORE_CALL");
            String answer;
            try {
                answer = "RESULT " + runner.durableExecute(action.call(mode));
            } catch (CallInterruptedException e) {
                answer = "INTERRUPTED " + e.getIdempotencyKey();
            }
            action.stop("AFTER_CALL");
            out.println(answer);
            out.flush();
            return answer;
        }
    }

    private DurableCallable<String> call(String mode) {
        Callable<String> body = () -> {
            stop("BODY_START");
            service.bodyStarted("charge");
            String key = DurableCall.current().idempotencyKey();
            service.request(key);
            stop("IN_SERVICE");
            stop("BODY_END");
            return "charged " + key;
        };
        Callable<String> reconciler = () -> {
            String key = DurableCall.current().idempotencyKey();
            return service.applied(key) ? "reconciled " + key : "not applied " + key;
        };
        switch (mode) {
            case "DEFAULT":
                return DurableCallable.of("charge", String.class, body);
            case "AT_MOST_ONCE":
                return DurableCallable.atMostOnce("charge", String.class, body);
            case "RECONCILED":
                return DurableCallable.atMostOnce("charge", String.class, body, reconciler);
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    /** At the boundary this process was told to stop at: says so and waits for SIGKILL. */
    private void stop(String here) throws InterruptedException {
        if (here.equals(boundary)) {
            out.println("AT " + here);
            out.flush();
            new CountDownLatch(1).await();
        }
    }
}
