package io.durablejournal;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What owning a native handle costs per call, measured on the cheapest native call (the call
 * index, one int back) in one run: straight to the native method, through a {@code synchronized}
 * owner with a closed check (how the owners guarded their handle before {@code NativeHandle}),
 * and through {@link DurableExecutionContext#getCurrentCallIndex()}, whose {@code NativeHandle}
 * also tracks the call in flight (re-entry refused, close deferred). In package {@code
 * io.durablejournal} to reach the package-private natives.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HandleOwnerBenchmark {
    private DurableExecutionContext context;
    private SynchronizedOwner synchronizedOwner;
    private long raw;

    /** The owner pattern before NativeHandle: one monitor, a closed check, no in-flight tracking. */
    private static final class SynchronizedOwner {
        private long handle;

        SynchronizedOwner(long handle) {
            this.handle = handle;
        }

        synchronized int currentCallIndex() {
            if (handle == 0) {
                throw new IllegalStateException("closed");
            }
            return JournalJni.currentCallIndex(handle);
        }

        synchronized void close() {
            long closing = handle;
            handle = 0;
            JournalJni.destroy(closing);
        }
    }

    @Setup(Level.Trial)
    public void open() {
        byte[] empty = ActionStateSerde.serialize(new ActionState());
        context = new DurableExecutionContext(new ActionState(), null);
        // A context opens its native journal at the first call that needs it; open it now so
        // getCurrentCallIndex() crosses to it.
        context.size();
        synchronizedOwner = new SynchronizedOwner(JournalJni.create(empty));
        raw = JournalJni.create(empty);
    }

    @TearDown(Level.Trial)
    public void close() {
        context.close();
        synchronizedOwner.close();
        JournalJni.destroy(raw);
    }

    /** Baseline: the native call alone (Rust still borrows the journal for the call). */
    @Benchmark
    public int unguarded() {
        return JournalJni.currentCallIndex(raw);
    }

    @Benchmark
    public int synchronizedOwner() {
        return synchronizedOwner.currentCallIndex();
    }

    @Benchmark
    public int nativeHandleOwner() {
        return context.getCurrentCallIndex();
    }
}
