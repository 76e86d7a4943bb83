package io.durablejournal.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What {@link CallCountingContext} counts, on every path a call can take through the journal. */
class CallCountingContextTest {
    private static final EventIdentity EVENT = EventIdentity.occurrence("occ-1");
    private final NativeActionStateStore store = ActionStateStores.inMemory();
    private final AtomicInteger bodies = new AtomicInteger();
    private final AtomicInteger reconcilers = new AtomicInteger();

    @AfterEach
    void closeStore() {
        store.close();
    }

    /** A fresh journal over this test's one entry (the store keeps what earlier journals recorded). */
    private DurableExecutionContext journal() {
        return store.openContext("k", 0, "act", EVENT, null);
    }

    private DurableCallable<String> call(String id) {
        return DurableCallable.of(id, String.class, () -> {
            bodies.incrementAndGet();
            return id + "-ran";
        });
    }

    private DurableCallable<String> reconcilable(String id) {
        return DurableCallable.of(id, String.class, () -> {
            bodies.incrementAndGet();
            return id + "-ran";
        }, () -> {
            reconcilers.incrementAndGet();
            return id + "-reconciled";
        });
    }

    private static void assertCounts(long executed, long replayed, long reconciled, CallCountingContext calls) {
        assertEquals(List.of(executed, replayed, reconciled), List.of(calls.executed(), calls.replayed(), calls.reconciled()),
                "executed, replayed, reconciled");
    }

    @Test
    void callsThatRunAreExecutedAndTheirReRunReplaysThem() throws Exception {
        try (DurableExecutionContext journal = journal()) {
            CallCountingContext calls = new CallCountingContext(journal);
            assertEquals("a-ran", calls.durableExecute(call("a")));
            assertEquals("b-ran", calls.durableExecute(reconcilable("b")));
            assertEquals("c-ran", calls.durableExecuteAsync(call("c")));
            assertCounts(3, 0, 0, calls);
        }
        try (DurableExecutionContext journal = journal()) {
            CallCountingContext calls = new CallCountingContext(journal);
            assertEquals("a-ran", calls.durableExecute(call("a")));
            assertEquals("b-ran", calls.durableExecute(reconcilable("b")));
            assertEquals("c-ran", calls.durableExecuteAsync(call("c")));
            assertCounts(0, 3, 0, calls);
        }
        assertEquals(3, bodies.get());
        assertEquals(0, reconcilers.get());
    }

    @Test
    void aPendingCallWithAReconcilerIsReconciledNotExecuted() throws Exception {
        try (DurableExecutionContext journal = journal()) {
            journal.appendPendingCall("b");   // what a run that died inside call b leaves
        }
        try (DurableExecutionContext journal = journal()) {
            CallCountingContext calls = new CallCountingContext(journal);
            assertEquals("b-reconciled", calls.durableExecute(reconcilable("b")));
            assertEquals("c-ran", calls.durableExecute(call("c")));
            assertCounts(1, 0, 1, calls);
        }
        assertEquals(1, reconcilers.get());
        assertEquals(1, bodies.get(), "only c's body ran");
    }

    @Test
    void aBatchCountsEachCallAsExecutedOrReplayed() throws Exception {
        try (DurableExecutionContext journal = journal()) {
            // A batch interrupted after its first call finished: a is recorded, b still PENDING.
            journal.reservePendingBatch(List.of("a", "b"));
            journal.finalizeCallAt(0, "a", "\"a-ran\"".getBytes(StandardCharsets.UTF_8), null);
        }
        try (DurableExecutionContext journal = journal()) {
            CallCountingContext calls = new CallCountingContext(journal);
            assertEquals(List.of("a-ran", "b-ran"), calls.durableExecuteAll(List.of(call("a"), call("b"))));
            assertCounts(1, 1, 0, calls);
        }
        try (DurableExecutionContext journal = journal()) {
            CallCountingContext calls = new CallCountingContext(journal);
            calls.durableExecuteAll(List.of(call("a"), call("b")));
            assertCounts(0, 2, 0, calls);
        }
        assertEquals(1, bodies.get());
    }

    /** Thrown by a call and rethrown, as itself, by its replay. */
    public static final class QuotaExceeded extends Exception {
        public QuotaExceeded(String message) {
            super(message);
        }
    }

    @Test
    void aReplayedFailureIsRethrownAsItsOwnClassThroughTheCountingProxy() throws Exception {
        DurableCallable<String> failing = DurableCallable.of("quota", String.class, () -> {
            bodies.incrementAndGet();
            throw new QuotaExceeded("no tokens left");
        });
        try (DurableExecutionContext journal = journal()) {
            CallCountingContext calls = new CallCountingContext(journal);
            assertEquals("no tokens left", assertThrows(QuotaExceeded.class, () -> calls.durableExecute(failing)).getMessage());
            assertCounts(1, 0, 0, calls);
        }
        try (DurableExecutionContext journal = journal()) {
            CallCountingContext calls = new CallCountingContext(journal);
            assertEquals("no tokens left", assertThrows(QuotaExceeded.class, () -> calls.durableExecute(failing)).getMessage());
            assertCounts(0, 1, 0, calls);
        }
        assertEquals(1, bodies.get());
    }

    /** A failure class of the job's own jar. */
    public static final class JobOnlyFailure extends Exception {
        public JobOnlyFailure(String message) {
            super(message);
        }
    }

    /** A call of the job's own jar that fails with {@link JobOnlyFailure}. */
    public static final class JobCall implements DurableCallable<String> {
        @Override
        public String getId() {
            return "job-call";
        }

        @Override
        public Class<String> getResultClass() {
            return String.class;
        }

        @Override
        public String call() throws Exception {
            throw new JobOnlyFailure("failed in the job's class loader");
        }
    }

    /**
     * Flink loads a job's classes in a user-code class loader of their own; a replayed failure is
     * rebuilt through the loader of the callable, which the counting proxy must not replace with
     * this library's (which may not see the job's classes, or, as here, sees other copies).
     */
    @Test
    void aReplayedFailureIsRebuiltInTheClassLoaderOfTheJobsCallable() throws Exception {
        ClassLoader job = new ChildFirst(JobOnlyFailure.class.getName(), JobCall.class.getName());
        Class<?> jobFailure = job.loadClass(JobOnlyFailure.class.getName());
        @SuppressWarnings("unchecked")
        DurableCallable<String> call = (DurableCallable<String>) job.loadClass(JobCall.class.getName()).getConstructor().newInstance();
        try (DurableExecutionContext journal = journal()) {
            Exception first = assertThrows(Exception.class, () -> new CallCountingContext(journal).durableExecute(call));
            assertEquals(jobFailure, first.getClass());
        }
        try (DurableExecutionContext journal = journal()) {
            CallCountingContext calls = new CallCountingContext(journal);
            Exception replayed = assertThrows(Exception.class, () -> calls.durableExecute(call));
            assertEquals(jobFailure, replayed.getClass(), "the job's class, not this loader's copy " + JobOnlyFailure.class);
            assertEquals("failed in the job's class loader", replayed.getMessage());
            assertCounts(0, 1, 0, calls);
        }
    }

    /** Defines the named classes itself from the test's class files (child first), like a job's class loader. */
    private static final class ChildFirst extends ClassLoader {
        private final List<String> own;

        ChildFirst(String... own) {
            super(CallCountingContextTest.class.getClassLoader());
            this.own = List.of(own);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!own.contains(name)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                try (java.io.InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (java.io.IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }

    @Test
    void withoutAJournalEveryCallIsExecuted() throws Exception {
        CallCountingContext calls = new CallCountingContext(null);
        calls.durableExecute(reconcilable("a"));
        calls.durableExecuteAsync(call("b"));
        calls.durableExecuteAll(List.of(call("c"), call("d")));
        assertCounts(4, 0, 0, calls);
        assertEquals(0, reconcilers.get());
    }
}
