package io.durablejournal;

import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * A side-effecting call whose outcome the journal records, so that a re-run of the action replays
 * it instead of running it again.
 *
 * @param <T> the result type, serialized as JSON
 */
public interface DurableCallable<T> {
    /** The whole identity of the call site; recovery matches it by position and by this id. */
    String getId();

    /** The class the recorded JSON result is decoded into on replay. */
    Class<T> getResultClass();

    /** Runs the side effect. */
    T call() throws Exception;

    /**
     * Finds out what happened to a call that was started but never recorded (the job failed while
     * it ran). Return null to opt out: the call then simply runs again.
     */
    default Callable<T> reconciler() {
        return null;
    }

    /**
     * What the journal does when this call was interrupted (its process died while it ran): null,
     * the default, leaves it to the runner's {@link RunnerContextImpl#setDefaultCallSemantics
     * default}, which is {@link CallSemantics#AT_LEAST_ONCE} unless set.
     */
    default CallSemantics semantics() {
        return null;
    }

    /** A durable call from its id, result type and body (no reconciler). */
    static <T> DurableCallable<T> of(String id, Class<T> resultClass, Callable<T> body) {
        return of(id, resultClass, body, null);
    }

    /** A durable call from its id, result type, body and reconciler (null for none). */
    static <T> DurableCallable<T> of(String id, Class<T> resultClass, Callable<T> body, Callable<T> reconciler) {
        return new LambdaDurableCallable<>(Objects.requireNonNull(id, "id"), resultClass, body, reconciler, null);
    }

    /**
     * An {@link CallSemantics#AT_MOST_ONCE at-most-once} call: its body never runs twice; a re-run
     * that finds it interrupted throws {@link CallInterruptedException}.
     */
    static <T> DurableCallable<T> atMostOnce(String id, Class<T> resultClass, Callable<T> body) {
        return atMostOnce(id, resultClass, body, null);
    }

    /**
     * An at-most-once call with a reconciler (null for none): a re-run that finds it interrupted
     * runs the reconciler, which finds out what happened (ask the service about {@link
     * DurableCall#idempotencyKey()}) and answers for the call.
     */
    static <T> DurableCallable<T> atMostOnce(String id, Class<T> resultClass, Callable<T> body, Callable<T> reconciler) {
        return new LambdaDurableCallable<>(Objects.requireNonNull(id, "id"), resultClass, body, reconciler, CallSemantics.AT_MOST_ONCE);
    }

    /**
     * An {@link CallSemantics#AT_LEAST_ONCE at-least-once} call whatever the runner's default: a
     * re-run that finds it interrupted runs it again (under the same {@link
     * DurableCall#idempotencyKey()}). Only a job whose default is at most once needs it.
     */
    static <T> DurableCallable<T> atLeastOnce(String id, Class<T> resultClass, Callable<T> body) {
        return new LambdaDurableCallable<>(Objects.requireNonNull(id, "id"), resultClass, body, null, CallSemantics.AT_LEAST_ONCE);
    }
}
