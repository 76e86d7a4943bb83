package io.durablejournal;

import io.durablejournal.identity.ExecutionIdentity;
import io.durablejournal.identity.RuntimeIdentity;
import io.durablejournal.internal.NativeLibrary;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child JVM programs for {@link NativeSafetyTest}. Each runs what the test JVM itself should not:
 * a sequence that crashed the JVM before the native handles were made safe, or a count of native
 * objects that needs a JVM where nothing else made any, or JNI traffic checked by {@code
 * -Xcheck:jni}. Each prints {@code OK <what>} lines and exits 0; any failed check throws (exit 1).
 */
final class NativeSafetyProbe {
    private NativeSafetyProbe() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.load();
        switch (args[0]) {
            case "close-in-persister":
                closeInPersister();
                break;
            case "large-jni-arrays":
                largeJniArrays(Paths.get(args[1]));
                break;
            case "cleaner":
                cleaner();
                break;
            default:
                throw new IllegalArgumentException("unknown probe " + args[0]);
        }
    }

    /**
     * A persister that closes the context it is persisting, hundreds of times, then contexts made
     * afterwards: before, this freed the journal under Rust (SIGSEGV, "double free detected", or a
     * later context with a wrong call index).
     */
    private static void closeInPersister() throws Exception {
        String lastRefusal = null;
        for (int round = 0; round < 300; round++) {
            DurableExecutionContext[] self = new DurableExecutionContext[1];
            DurableExecutionContext[] madeInPersister = new DurableExecutionContext[1];
            List<ActionState> persisted = new ArrayList<>();
            boolean reconcilable = round % 2 == 1;
            self[0] = new DurableExecutionContext(new ActionState(), state -> {
                persisted.add(state);
                self[0].close();
                // Native memory allocated right after the close: it would reuse a freed journal.
                madeInPersister[0] = new DurableExecutionContext(new ActionState(), null);
            });
            RunnerContextImpl runner = new RunnerContextImpl(self[0]);
            AtomicInteger runs = new AtomicInteger();
            DurableCallable<String> first = reconcilable
                    ? DurableCallable.of("tool-call:first", String.class, () -> "v" + runs.incrementAndGet(), () -> "reconciled")
                    : DurableCallable.of("tool-call:first", String.class, () -> "v" + runs.incrementAndGet());
            try {
                String value = runner.durableExecute(first);
                check(!reconcilable && "v1".equals(value), "a plain call completes and returns: " + value);
                check(persisted.size() == 1 && persisted.get(0).getCallResults().get(0).isSuccess(), "its outcome was persisted");
                runner.durableExecute(DurableCallable.of("tool-call:second", String.class, () -> "never"));
                throw new AssertionError("a call after the close in the persister must be refused");
            } catch (IllegalStateException refused) {
                // reconcilable: the PENDING slot's persister closed the context; the body ran and its
                // outcome cannot be recorded, so the slot stays PENDING for the reconciler.
                check(refused.getMessage().equals("DurableExecutionContext is closed"), refused.getMessage());
                check(runs.get() == 1, "the body ran once");
                lastRefusal = refused.toString();
            }
            try (DurableExecutionContext inPersister = madeInPersister[0]) {
                check(inPersister.getCurrentCallIndex() == 0 && inPersister.size() == 0,
                        "a context made inside the persister was not written by the call that closed the other: index "
                                + inPersister.getCurrentCallIndex() + ", size " + inPersister.size());
            }
            try (DurableExecutionContext later = new DurableExecutionContext(new ActionState(), null)) {
                check(later.getCurrentCallIndex() == 0 && later.size() == 0, "a later context starts clean");
                new RunnerContextImpl(later).durableExecute(DurableCallable.of("tool-call:later", String.class, () -> "x"));
                check(later.size() == 1 && later.getCurrentCallIndex() == 1, "and journals normally");
            }
        }
        check(DiagnosticsJni.liveHandleCount() == 0, "every journal was freed exactly once: " + DiagnosticsJni.liveHandleCount());
        System.out.println("OK close-in-persister: the JVM runs on; the next call got " + lastRefusal);
    }

    /**
     * Arrays of Java objects far larger than a native frame's local references: a batch of 5,000
     * ids (durableExecuteAll, first run and replay, and reservePendingBatch directly) and 100
     * recovery markers. {@code -Xcheck:jni} warns if a loop leaks a local reference per element.
     */
    private static void largeJniArrays(Path dir) throws Exception {
        int size = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            EventIdentity event = EventIdentity.rootOccurrence("k", 0);
            AtomicInteger runs = new AtomicInteger();
            List<DurableCallable<Integer>> batch = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                int value = i;
                batch.add(DurableCallable.of("tool-call:batch-" + i, Integer.class, () -> {
                    runs.incrementAndGet();
                    return value;
                }));
            }
            for (int run = 0; run < 2; run++) {
                try (DurableExecutionContext ctx = store.openContext("k", 0, "act", event, null)) {
                    List<Object> results = new RunnerContextImpl(ctx, pool).durableExecuteAll(batch);
                    check(results.size() == size && results.get(size - 1).equals(size - 1), "every result came back");
                    check(ctx.size() == size, "every call was journaled: " + ctx.size());
                }
            }
            check(runs.get() == size, "the second run replayed the batch: " + runs.get());

            List<String> ids = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                ids.add("reserved-" + i + "-调用-🔧");
            }
            try (DurableExecutionContext ctx = new DurableExecutionContext(new ActionState(), null)) {
                ctx.reservePendingBatch(ids);
                check(ctx.size() == size, "reserved " + ctx.size());
            }

            List<byte[]> markers = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                store.put("m", i, "act", EventIdentity.rootOccurrence("m", i), new ActionState());
                markers.add(store.getRecoveryMarker());
            }
            store.rebuildState(markers);
        } finally {
            pool.shutdownNow();
        }
        System.out.println("OK large-jni-arrays: a batch of " + size + " ids and 100 markers");
    }

    /** Owners of every kind dropped without close(): the Cleaner frees their native objects. */
    private static void cleaner() throws InterruptedException {
        long before = DiagnosticsJni.liveHandleCount();
        check(before == 0, "a fresh JVM owns no native objects: " + before);
        // Held strongly while counting, so no collection can free one early.
        List<Object> owners = makeOwners(500);
        check(DiagnosticsJni.liveHandleCount() == owners.size(),
                "each owner holds one native object: " + DiagnosticsJni.liveHandleCount() + " for " + owners.size());
        int made = owners.size();
        owners = null;
        // The Cleaner frees on its own thread, after a collection finds the owners unreachable; it
        // signals nothing we can wait on, so collect and poll the count until a deadline (a
        // fixed number of back-to-back collections ran out before the Cleaner thread got the CPU
        // on a loaded two-core machine).
        int attempts = 0;
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (DiagnosticsJni.liveHandleCount() > 0 && System.nanoTime() < deadline) {
            System.gc();
            attempts++;
            Thread.sleep(5);
        }
        check(DiagnosticsJni.liveHandleCount() == 0, "the Cleaner freed them all: " + DiagnosticsJni.liveHandleCount() + " left");
        System.out.println("OK cleaner: " + made + " native objects freed after " + attempts + " GCs");
    }

    /** Makes {@code n} of each kind of owner (none closed), each holding one native object. */
    private static List<Object> makeOwners(int n) {
        String execution = RuntimeIdentity.actionExecution(
                RuntimeIdentity.rootOccurrence("k".getBytes(StandardCharsets.UTF_8), 0), "act");
        List<Object> owners = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            DurableExecutionContext context = new DurableExecutionContext(new ActionState(), null);
            context.recordCallCompletion("a", null, null);
            ExecutionIdentity ids = RuntimeIdentity.forExecution(execution);
            ids.emit();
            NativeActionStateStore store = ActionStateStores.inMemory();
            DurableExecutionContext stored = store.openContext("k", i, "act", EventIdentity.rootOccurrence("k", i), null);
            stored.recordCallCompletion("a", null, null);
            Collections.addAll(owners, context, ids, store, stored);
        }
        return owners;
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
