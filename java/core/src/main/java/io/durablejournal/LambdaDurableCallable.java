package io.durablejournal;

import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * What {@link DurableCallable#of} builds: the four parts of a durable call, given as values. Not
 * final: the core's tests extend it with calls that count their runs, and with a call that lacks
 * an id, for the runner to refuse.
 */
class LambdaDurableCallable<T> implements DurableCallable<T> {
    private final String id;
    private final Class<T> resultClass;
    private final Callable<T> body;
    private final Callable<T> reconciler;
    private final CallSemantics semantics;

    LambdaDurableCallable(String id, Class<T> resultClass, Callable<T> body, Callable<T> reconciler) {
        this(id, resultClass, body, reconciler, null);
    }

    LambdaDurableCallable(String id, Class<T> resultClass, Callable<T> body, Callable<T> reconciler, CallSemantics semantics) {
        // A null id is refused by the runner at the call (DurableCallable.of refuses it up front).
        this.id = id;
        this.resultClass = Objects.requireNonNull(resultClass, "resultClass");
        this.body = Objects.requireNonNull(body, "body");
        this.reconciler = reconciler;
        this.semantics = semantics;
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public Class<T> getResultClass() {
        return resultClass;
    }

    @Override
    public T call() throws Exception {
        return body.call();
    }

    @Override
    public Callable<T> reconciler() {
        return reconciler;
    }

    @Override
    public CallSemantics semantics() {
        return semantics;
    }

    @Override
    public String toString() {
        return "DurableCallable{" + id + "}";
    }
}
