package io.durablejournal.flink;

import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link RunnerContextImpl} an operator hands its action, counting which of the action's
 * durable calls ran their body, which ran their reconciler and which replayed, for the operator's
 * metrics. The journal decides (natively) what each call does; this class only sees which user
 * code it then runs: each callable is handed on in a proxy whose {@code call()} and whose
 * reconciler's {@code call()} count themselves. A replay runs neither, and is counted by the
 * journal ({@link DurableExecutionContext#getReplayedCallCount()}) for single calls and here for
 * the calls of a batch.
 *
 * <p>The proxy is defined in the class loader of the callable it wraps: a replayed failure is
 * rebuilt as its original exception class through the callable's class loader, which must stay
 * the user's (a class of the job's jar may be invisible to this library's loader).
 *
 * <p>Bodies may run on executor threads ({@code durableExecuteAsync}, batches): the counts are
 * atomic.
 */
final class CallCountingContext extends RunnerContextImpl {
    /** Null: no journal, calls just run (and are counted as executed). */
    private final DurableExecutionContext journal;
    private final AtomicLong executed = new AtomicLong();
    private final AtomicLong reconciled = new AtomicLong();
    /** Calls of batches answered from the journal (single calls are counted by the journal). */
    private long replayedInBatches;

    CallCountingContext(DurableExecutionContext journal) {
        super(journal);
        this.journal = journal;
    }

    @Override
    public <T> T durableExecute(DurableCallable<T> callable) throws Exception {
        return super.durableExecute(counting(callable));
    }

    @Override
    public <T> T durableExecuteAsync(DurableCallable<T> callable) throws Exception {
        return super.durableExecuteAsync(counting(callable));
    }

    /**
     * Each call of a finished batch either ran its body or replayed; a batch that did not get past
     * its calls (refused as nested, or its journal failed) replayed none.
     */
    @Override
    public List<Object> durableExecuteAll(List<? extends DurableCallable<?>> callables) throws Exception {
        Objects.requireNonNull(callables, "callables");
        List<DurableCallable<?>> wrapped = new ArrayList<>(callables.size());
        for (int i = 0; i < callables.size(); i++) {
            wrapped.add(counting(Objects.requireNonNull(callables.get(i), "callables[" + i + "]")));
        }
        int indexBefore = journal == null ? 0 : journal.getCurrentCallIndex();
        long executedBefore = executed.get();
        try {
            return super.durableExecuteAll(wrapped);
        } finally {
            if (journal != null && journal.getCurrentCallIndex() == indexBefore + callables.size()) {
                replayedInBatches += callables.size() - (executed.get() - executedBefore);
            }
        }
    }

    /** Call bodies that ran (a replayed call runs none; a reconciled one runs its reconciler instead). */
    long executed() {
        return executed.get();
    }

    /** Reconcilers that ran: a call journaled as PENDING by an interrupted run, asked what happened. */
    long reconciled() {
        return reconciled.get();
    }

    /** Calls answered from the journal without running. */
    long replayed() {
        return (journal == null ? 0 : journal.getReplayedCallCount()) + replayedInBatches;
    }

    @SuppressWarnings("unchecked")
    private <T> DurableCallable<T> counting(DurableCallable<T> callable) {
        Objects.requireNonNull(callable, "callable");
        ClassLoader loader = callable.getClass().getClassLoader();
        return (DurableCallable<T>) Proxy.newProxyInstance(loader != null ? loader : DurableCallable.class.getClassLoader(),
                new Class<?>[] {DurableCallable.class}, new Counting(callable));
    }

    /** Forwards every method to the callable; counts its body, and wraps its reconciler to count it. */
    private final class Counting implements InvocationHandler {
        private final DurableCallable<?> target;

        Counting(DurableCallable<?> target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            boolean noArguments = method.getParameterCount() == 0;
            if (noArguments && method.getName().equals("call")) {
                executed.incrementAndGet();
            }
            Object result = forward(method, args);
            if (noArguments && method.getName().equals("reconciler") && result != null) {
                Callable<?> reconciler = (Callable<?>) result;
                return (Callable<Object>) () -> {
                    reconciled.incrementAndGet();
                    return reconciler.call();
                };
            }
            return result;
        }

        private Object forward(Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
