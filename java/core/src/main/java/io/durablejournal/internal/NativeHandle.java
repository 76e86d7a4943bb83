package io.durablejournal.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongToIntFunction;

/**
 * The one owner of a native object (a handle the native library handed out) for a Java object:
 * {@code DurableExecutionContext}, {@code NativeActionStateStore}, {@code LogActionStateStore} and
 * {@code ExecutionIdentity} each hold one. Not public API: the package is internal.
 *
 * <p>Every native call on the handle runs between {@link #acquire()} and {@link #release()}, most
 * simply through {@link #apply}, {@link #applyAsInt} or {@link #accept}:
 * {@code handle.apply(h -> Native.call(h, ...))}.
 *
 * <p>The rules, which together mean no call sequence from Java can make the native side use
 * freed memory:
 *
 * <ul>
 *   <li><b>Calls are serialized.</b> One call at a time per handle (the native side holds the
 *       object exclusively during a call); a call from another thread waits.
 *   <li><b>Re-entry is refused.</b> A call from inside another call on the same thread (a
 *       callback such as an {@code ActionStatePersister} calling back into the context it is
 *       persisting) is an {@link IllegalStateException}: the object is in use.
 *   <li><b>{@link #close()} never frees an object in use.</b> Called from inside a call on the
 *       same thread (a callback), it is deferred: the object is freed when that call returns, and
 *       every later call is refused. Called from another thread, it waits for the call in flight
 *       to return, then frees. It is idempotent. (A callback that hands {@code close()} to
 *       another thread and waits for it deadlocks, as any lock would.)
 *   <li><b>After close</b> every {@link #acquire()} is an {@link IllegalStateException}.
 *   <li><b>A safety net.</b> An owner dropped without {@code close()} has its native object
 *       freed by a {@link Cleaner} once the owner is unreachable (after the call in flight, if
 *       the owner became unreachable during one). {@code close()} stays the documented way: the
 *       Cleaner runs whenever the garbage collector gets to it, and an error the release reports
 *       (a store's final sync) has nobody to go to.
 * </ul>
 *
 * <p>An uncontended call costs one compare-and-set to take the object and a volatile write to let
 * it go; the monitor is used only when a thread has to wait.
 */
public final class NativeHandle {
    /** Frees a native object; the owner's {@code destroy} native. */
    @FunctionalInterface
    public interface Release {
        void release(long address);
    }

    /**
     * One daemon thread per class loader that loads this class. It ends once every owner of that
     * loader was closed or collected and the loader itself is unreachable, so a Flink job restart
     * (a new user-code class loader) leaves no thread behind.
     */
    private static final Cleaner CLEANER = Cleaner.create();

    private static final VarHandle CALLER;
    private static final VarHandle ADDRESS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CALLER = lookup.findVarHandle(NativeHandle.class, "caller", Thread.class);
            ADDRESS = lookup.findVarHandle(NativeHandle.class, "address", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String owner;
    private final Release release;
    private final Cleaner.Cleanable cleanable;
    /** The native object, or 0 once released. */
    private volatile long address;
    /** The thread whose call (or close) holds the object, or null. */
    private volatile Thread caller;
    /** Close was asked for: no call may start. */
    private volatile boolean closing;
    /** Threads waiting for the object in the monitor; changed only while holding it. */
    private volatile int waiting;
    /**
     * The holder closed the object from inside its own call: it is released when that call
     * returns. Only the holding thread reads or writes this.
     */
    private boolean releaseOnReturn;
    /** Calls started on the object; written only by the thread holding it. */
    private volatile long calls;

    /**
     * Takes ownership of {@code address} for {@code owner}.
     *
     * @param owner the Java object whose lifetime bounds the native object's; the Cleaner
     *     releases the object once {@code owner} is unreachable. Must not be referenced by
     *     {@code release}.
     * @param ownerName what error messages call the owner, e.g. "DurableExecutionContext"
     * @param release frees the native object (called once)
     */
    public NativeHandle(Object owner, String ownerName, long address, Release release) {
        if (address == 0) {
            throw new IllegalArgumentException(ownerName + ": the native library returned no object");
        }
        this.owner = ownerName;
        this.release = release;
        this.address = address;
        this.cleanable = CLEANER.register(owner, this::releaseUnreachable);
    }

    /** Starts a native call: the address to pass, held by this thread until {@link #release()}. */
    public long acquire() {
        Thread me = Thread.currentThread();
        if (!CALLER.compareAndSet(this, null, me)) {
            if (caller == me) {
                throw new IllegalStateException(owner + " was called from inside one of its own calls (e.g. from the "
                        + "ActionStatePersister it is persisting with); only close() may be called there, and it takes "
                        + "effect when the outer call returns");
            }
            take(me, true);
        }
        if (closing) {
            letGo();
            throw closed();
        }
        calls++;
        return address;
    }

    /**
     * How many calls were started on the object (read while holding it, its holder's call
     * included): an owner that noted the count in one call can tell, in a later one, whether any
     * other call touched the object in between.
     */
    public long calls() {
        return calls;
    }

    /** Runs one native call on the object. */
    public <R> R apply(LongFunction<R> call) {
        long h = acquire();
        try {
            return call.apply(h);
        } finally {
            release();
        }
    }

    /** Runs one native call on the object that answers an int ({@link #apply}). */
    public int applyAsInt(LongToIntFunction call) {
        return apply(call::applyAsInt);
    }

    /** Runs one native call on the object that answers nothing ({@link #apply}). */
    public void accept(LongConsumer call) {
        apply(h -> {
            call.accept(h);
            return null;
        });
    }

    /** Ends the native call {@link #acquire()} started; runs a release deferred during it. */
    public void release() {
        if (releaseOnReturn) {
            releaseOnReturn = false;
            try {
                releaseNow();
            } finally {
                letGo();
            }
        } else {
            letGo();
        }
    }

    /**
     * Releases the native object: now if no call holds it; when the call returns if this thread's
     * call holds it (a callback closing its own owner); after the call returns if another
     * thread's call holds it. Idempotent.
     */
    public void close() {
        Thread me = Thread.currentThread();
        closing = true;
        if (caller == me) {
            releaseOnReturn = true;
            return;
        }
        releaseAfterCalls(me);
        cleanable.clean();
    }

    /** True once close was asked for (the object may still be in use by the call that asked). */
    public boolean isClosed() {
        return closing;
    }

    private IllegalStateException closed() {
        return new IllegalStateException(owner + " is closed");
    }

    /**
     * Waits in the monitor until this thread holds the object; without giving up on interrupts,
     * as entering a monitor would not. A call ({@code forCall}) stops waiting when close was asked.
     */
    private void take(Thread me, boolean forCall) {
        boolean interrupted = false;
        synchronized (this) {
            waiting++;
            try {
                while (!CALLER.compareAndSet(this, null, me)) {
                    if (forCall && closing) {
                        throw closed();
                    }
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                waiting--;
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Lets go of the object and wakes whoever waits for it. */
    private void letGo() {
        caller = null;
        if (waiting > 0) {
            synchronized (this) {
                notifyAll();
            }
        }
    }

    /** Takes the object like a call (so none is in flight), frees it and lets go. */
    private void releaseAfterCalls(Thread me) {
        if (!CALLER.compareAndSet(this, null, me)) {
            take(me, false);
        }
        try {
            releaseNow();
        } finally {
            letGo();
        }
    }

    /** Frees the object if nobody did yet. */
    private void releaseNow() {
        long freeing = (long) ADDRESS.getAndSet(this, 0L);
        if (freeing != 0) {
            release.release(freeing);
        }
    }

    /**
     * The Cleaner's action: the owner is unreachable, so at most a call that started before can
     * hold the object (the JIT may drop an owner in the middle of its own method); wait for it.
     */
    private void releaseUnreachable() {
        closing = true;
        releaseAfterCalls(Thread.currentThread());
    }
}
