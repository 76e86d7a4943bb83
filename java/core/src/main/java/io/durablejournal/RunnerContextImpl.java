package io.durablejournal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;

/**
 * Runs an action's side-effecting calls through the journal: a call recorded by an earlier run of
 * the action is replayed (its value returned or its failure rethrown) instead of running again.
 * The decision (spec §2.2 without a reconciler, §2.3 with one) is taken by the native journal;
 * this class runs the Java code it asks for and records the outcome.
 */
public class RunnerContextImpl {
    private final DurableExecutionContext context;
    private final Executor executor;
    /** Calls run without a journal (no context), for {@link #getExecutedCallCount()}. */
    private final java.util.concurrent.atomic.AtomicInteger executedWithoutJournal = new java.util.concurrent.atomic.AtomicInteger();
    /** The semantics of calls that declare none; null: at least once. */
    private volatile CallSemantics defaultSemantics;

    /** @param context the action's journal, or null: no durability, calls just run */
    public RunnerContextImpl(DurableExecutionContext context) {
        this(context, ForkJoinPool.commonPool());
    }

    /** @param executor where {@link #durableExecuteAsync} and {@link #durableExecuteAll} run calls */
    public RunnerContextImpl(DurableExecutionContext context, Executor executor) {
        this.context = context;
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    /**
     * The semantics of every durable call that declares none ({@link DurableCallable#semantics()}
     * null): a job's default. Null (the default) is {@link CallSemantics#AT_LEAST_ONCE}. Without a
     * journal every call just runs, whatever its semantics.
     */
    public void setDefaultCallSemantics(CallSemantics semantics) {
        defaultSemantics = semantics;
    }

    /** The default set by {@link #setDefaultCallSemantics}, or null. */
    public CallSemantics getDefaultCallSemantics() {
        return defaultSemantics;
    }

    public <T> T durableExecute(DurableCallable<T> callable) throws Exception {
        Objects.requireNonNull(callable, "callable");
        if (context == null) {
            executedWithoutJournal.incrementAndGet();
            return callable.call();
        }
        return execute(callable, false);
    }

    /** Runs the call on the executor and waits; resolves through the same state machine. */
    public <T> T durableExecuteAsync(DurableCallable<T> callable) throws Exception {
        Objects.requireNonNull(callable, "callable");
        if (context == null) {
            executedWithoutJournal.incrementAndGet();
            return runAsync(callable::call);
        }
        return execute(callable, true);
    }

    /**
     * How {@link #durableExecuteAsync} runs a call's body (never a replay, never a reconciler):
     * on the executor, the caller waiting for it. A runtime with its own way of running async work
     * (Flink Agents' continuation executor, which yields the operator's mailbox) overrides this;
     * the journal's decision and the recording of the outcome stay here.
     *
     * @return the body's value; its exception is thrown as it is
     */
    protected <T> T runAsync(Callable<T> body) throws Exception {
        return awaitOn(executor, body);
    }

    /**
     * The class loader a replayed failure's class is looked up in (a recorded failure is rethrown
     * as its own class where that loader finds it): the callable's own. A runtime that wraps its
     * users' calls in a callable of its own, whose class may sit in a parent loader (an adapter in
     * Flink's {@code lib/}, the user's exception classes in the job jar), overrides this to name
     * the loader of the user's call.
     */
    protected ClassLoader userClassLoader(DurableCallable<?> callable) {
        return callable.getClass().getClassLoader();
    }

    /**
     * Runs a batch of calls in parallel on the executor (spec §2.5): pending slots are reserved
     * once, each outcome is finalized at its absolute slot in input order, and the index then
     * moves past the batch. Recorded outcomes replay; the first failure is rethrown after every
     * call has been recorded.
     */
    public List<Object> durableExecuteAll(List<? extends DurableCallable<?>> callables) throws Exception {
        Objects.requireNonNull(callables, "callables");
        for (int i = 0; i < callables.size(); i++) {
            Objects.requireNonNull(callables.get(i), "callables[" + i + "]");
        }
        return new Batch(callables).run();
    }

    /**
     * Whether this execution takes the code of change {@code changeId}: see {@link
     * DurableExecutionContext#patched}. Without a journal every execution is new: true.
     */
    public boolean patched(String changeId) {
        java.util.Objects.requireNonNull(changeId, "changeId");
        return context == null || context.patched(changeId);
    }

    /**
     * A recorded result payload (JSON, or null) read as {@code resultClass}, exactly as a replayed
     * call's recorded value is read: for a runtime that answers a call with a value given in its
     * recorded form (a replay's stub).
     *
     * @throws JournalException ({@code PAYLOAD_UNREADABLE}) when it does not read as {@code resultClass}
     */
    protected static <T> T decodeRecordedResult(String functionId, byte[] payload, Class<T> resultClass) {
        return Payloads.decodeResult(functionId, payload, resultClass);
    }

    /** Durable calls whose body ran (every call, without a journal). */
    public int getExecutedCallCount() {
        return context == null ? executedWithoutJournal.get() : context.getExecutedCallCount();
    }

    /** Durable calls answered from the journal without running (0 without a journal). */
    public int getReplayedCallCount() {
        return context == null ? 0 : context.getReplayedCallCount();
    }

    /** Durable calls that diverged from the journal under {@link DivergencePolicy#WARN} (0 without a journal). */
    public int getDivergedCallCount() {
        return context == null ? 0 : context.getDivergedCallCount();
    }

    /** Durable calls that ran their reconciler over a PENDING slot (0 without a journal). */
    public int getReconciledCallCount() {
        return context == null ? 0 : context.getReconciledCallCount();
    }

    public Object[] getCurrentCallResultFields() {
        return context == null ? null : context.getCurrentCallResultFields();
    }

    public Object[] getCallResultFieldsAt(int index) {
        return context == null ? null : context.getCallResultFieldsAt(index);
    }

    private <T> T execute(DurableCallable<T> callable, boolean onExecutor) throws Exception {
        String id = Objects.requireNonNull(callable.getId(), "callable.getId()");
        Class<T> resultClass = Objects.requireNonNull(callable.getResultClass(), "callable.getResultClass()");
        Callable<T> reconciler = callable.reconciler();
        CallStep step = context.runnerCalls().beginCall(id, reconciler != null, callable.semantics(), defaultSemantics);
        if (step.kind == CallStep.REPLAY) {
            return replay(id, step.result, step.exception, resultClass, userClassLoader(callable));
        }
        OutcomeRecorder recorder = (result, exception) -> context.runnerCalls().completeCall(id, result, exception);
        DurableCall call = new DurableCall(context, id, -1);
        try {
            if (step.kind == CallStep.RECONCILE) {
                // A reconciler runs on the caller's thread, also for durableExecuteAsync (as in
                // Flink Agents): it inspects what the interrupted call left behind, it is not the
                // side effect.
                return runAndRecord(id, () -> DurableCall.run(call, reconciler), false, recorder);
            }
            Callable<T> body = onExecutor ? () -> context.runAsBody(() -> DurableCall.run(call, callable::call))
                    : () -> DurableCall.run(call, callable::call);
            return runAndRecord(id, body, onExecutor, recorder);
        } finally {
            // However the body ended (an Error, an interrupt), it is no longer in progress.
            context.endCall();
        }
    }

    /** Where a call's outcome goes: appended or finalized at the index, or at a batch slot. */
    private interface OutcomeRecorder {
        void record(byte[] resultPayload, byte[] exceptionPayload);
    }

    private <T> T runAndRecord(String id, Callable<T> body, boolean onExecutor, OutcomeRecorder recorder) throws Exception {
        T value;
        try {
            value = onExecutor ? runAsync(body) : body.call();
        } catch (InterruptedException | CancellationException e) {
            // Not an outcome of the call: the next run must try it again.
            throw e;
        } catch (Exception e) {
            recorder.record(null, Payloads.encodeFailure(e));
            throw e;
        }
        return recordValue(id, value, recorder);
    }

    /**
     * Records a value the call returned. One that cannot be written as JSON is recorded as the
     * {@link ResultNotSerializableException} thrown here: the call ran, so its slot must not stay
     * PENDING (or absent) and run the side effect again on the next run.
     */
    private static <T> T recordValue(String id, T value, OutcomeRecorder recorder) {
        byte[] payload;
        try {
            payload = Payloads.encodeResult(id, value);
        } catch (ResultNotSerializableException e) {
            recorder.record(null, Payloads.encodeFailure(e));
            throw e;
        }
        recorder.record(payload, null);
        return value;
    }

    /** Returns or rethrows a recorded outcome: the failure when there is one, else the result. */
    private static <T> T replay(String id, byte[] result, byte[] exception, Class<T> resultClass, ClassLoader loader) throws Exception {
        if (exception != null) {
            throw Payloads.decodeFailure(id, exception, loader);
        }
        return Payloads.decodeResult(id, result, resultClass);
    }

    private static <T> T awaitOn(Executor executor, Callable<T> body) throws Exception {
        CompletableFuture<T> future = new CompletableFuture<>();
        executor.execute(() -> {
            try {
                future.complete(body.call());
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        });
        return await(future);
    }

    private static <T> T await(Future<T> future) throws Exception {
        try {
            return future.get();
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }

    /** One {@link #durableExecuteAll} call. */
    private final class Batch {
        private final List<? extends DurableCallable<?>> callables;
        private final int start;

        Batch(List<? extends DurableCallable<?>> callables) {
            this.callables = callables;
            this.start = context == null ? 0 : context.getCurrentCallIndex();
        }

        List<Object> run() throws Exception {
            if (context == null) {
                executedWithoutJournal.addAndGet(callables.size());
                return collect(startAll(Collections.nCopies(callables.size(), Boolean.TRUE)));
            }
            // A durable call inside a body of the batch (or the batch inside a call) is refused as nested.
            context.runnerCalls().beginBatch(callables.size());
            try {
                return runJournaled();
            } finally {
                context.endCall();
            }
        }

        private List<Object> runJournaled() throws Exception {
            List<Integer> steps = reserveOrReuse();
            List<Boolean> toRun = new ArrayList<>();
            for (int step : steps) {
                toRun.add(step == CallStep.RUN);
            }
            int running = Collections.frequency(toRun, Boolean.TRUE);
            context.runnerCalls().countBatch(Collections.frequency(steps, CallStep.REPLAY), running);
            List<CompletableFuture<Object>> futures = startAll(toRun);
            Exception first = null;
            List<Object> results = new ArrayList<>();
            for (int i = 0; i < callables.size(); i++) {
                try {
                    if (steps.get(i) == CallStep.INTERRUPTED) {
                        throw context.runnerCalls().interruptionAt(start + i, callables.get(i).getId());
                    }
                    results.add(futures.get(i) != null ? recordAt(i, futures.get(i)) : replayAt(i));
                } catch (Exception e) {
                    results.add(null);
                    first = first == null ? e : first;
                }
            }
            context.advanceCallIndexBy(callables.size());
            if (first != null) {
                throw first;
            }
            return results;
        }

        /**
         * The journal's decision per call (run, or replay its slot): it keeps the recorded slots that
         * match the batch in order and reserves the rest (see {@code RunnerCalls.decideBatch}).
         */
        private List<Integer> reserveOrReuse() {
            List<String> ids = new ArrayList<>();
            List<CallSemantics> declared = new ArrayList<>();
            for (DurableCallable<?> callable : callables) {
                ids.add(Objects.requireNonNull(callable.getId(), "callable.getId()"));
                declared.add(callable.semantics());
            }
            CallSemantics jobDefault = defaultSemantics;
            List<Integer> steps = new ArrayList<>();
            if (jobDefault == null && Collections.frequency(declared, null) == declared.size()) {
                for (boolean runs : context.runnerCalls().decideBatch(ids)) {
                    steps.add(runs ? CallStep.RUN : CallStep.REPLAY);
                }
            } else {
                for (int step : context.runnerCalls().decideBatch(ids, declared, jobDefault)) {
                    steps.add(step);
                }
            }
            return steps;
        }

        private List<CompletableFuture<Object>> startAll(List<Boolean> toRun) {
            List<CompletableFuture<Object>> futures = new ArrayList<>();
            for (int i = 0; i < callables.size(); i++) {
                DurableCallable<?> callable = callables.get(i);
                DurableCall call = context == null ? null : new DurableCall(context, callable.getId(), start + i);
                Callable<?> body = context == null ? callable::call
                        : () -> context.runAsBody(() -> DurableCall.run(call, callable::call));
                futures.add(toRun.get(i) ? CompletableFuture.supplyAsync(() -> callUnchecked(body), executor) : null);
            }
            return futures;
        }

        private List<Object> collect(List<CompletableFuture<Object>> futures) throws Exception {
            List<Object> results = new ArrayList<>();
            for (CompletableFuture<Object> future : futures) {
                results.add(await(future));
            }
            return results;
        }

        private Object recordAt(int i, CompletableFuture<Object> future) throws Exception {
            String id = callables.get(i).getId();
            return runAndRecord(id, () -> await(future), false,
                    (result, exception) -> context.finalizeCallAt(start + i, id, result, exception));
        }

        private Object replayAt(int i) throws Exception {
            DurableCallable<?> callable = callables.get(i);
            JournalSlot slot = context.slotAt(start + i);
            return replay(callable.getId(), slot.result, slot.exception, callable.getResultClass(), userClassLoader(callable));
        }
    }

    private static Object callUnchecked(Callable<?> callable) {
        try {
            return callable.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
        }
    }
}
