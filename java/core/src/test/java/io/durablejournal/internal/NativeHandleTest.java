package io.durablejournal.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The handle-owner rules on their own, with a fake native object: serialized calls, refused
 * re-entry, deferred close, use after close, and the Cleaner safety net.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NativeHandleTest {
    private static final long ADDRESS = 0x1234L;

    /** Every address released, in order. */
    private final List<Long> released = new CopyOnWriteArrayList<>();
    /** Stays reachable for the whole test, so no Cleaner runs for it. */
    private final Object owner = new Object();

    private NativeHandle handle() {
        return new NativeHandle(owner, "Thing", ADDRESS, released::add);
    }

    /** A call on another thread that holds the handle until {@link #finish()}. */
    private static final class HeldCall {
        private final CountDownLatch inCall = new CountDownLatch(1);
        private final CountDownLatch finish = new CountDownLatch(1);
        private final CompletableFuture<Void> done;

        HeldCall(NativeHandle handle, Runnable atEnd) throws InterruptedException {
            done = CompletableFuture.runAsync(() -> handle.accept(h -> {
                inCall.countDown();
                awaitQuietly(finish);
                atEnd.run();
            }));
            assertTrue(inCall.await(30, TimeUnit.SECONDS), "the call started");
        }

        void finish() throws Exception {
            finish.countDown();
            done.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCallGetsTheAddressAndCloseReleasesItOnce() {
        NativeHandle handle = handle();
        assertEquals(ADDRESS, (long) handle.apply(h -> h));
        assertFalse(handle.isClosed());
        handle.close();
        handle.close();
        assertEquals(List.of(ADDRESS), released);
        assertTrue(handle.isClosed());
        IllegalStateException e = assertThrows(IllegalStateException.class, handle::acquire);
        assertEquals("Thing is closed", e.getMessage());
    }

    @Test
    void aZeroAddressIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new NativeHandle(owner, "Thing", 0, released::add));
    }

    @Test
    void aCallFromInsideACallOnTheSameThreadIsRefused() {
        NativeHandle handle = handle();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> handle.accept(outer -> handle.accept(inner -> {})));
        assertTrue(e.getMessage().contains("from inside one of its own calls"), e.getMessage());
        assertEquals(ADDRESS, handle.acquire(), "the refused call left the handle usable");
        handle.release();
        assertTrue(released.isEmpty());
    }

    @Test
    void closeFromInsideACallTakesEffectWhenTheCallReturns() {
        NativeHandle handle = handle();
        handle.accept(h -> {
            handle.close();
            assertTrue(released.isEmpty(), "not released while the call still holds it");
            assertTrue(handle.isClosed());
        });
        assertEquals(List.of(ADDRESS), released, "released as the call returned");
        assertThrows(IllegalStateException.class, handle::acquire);
    }

    @Test
    void closeFromAnotherThreadWaitsForTheCallInFlight() throws Exception {
        NativeHandle handle = handle();
        HeldCall call = new HeldCall(handle, () -> {});
        Thread closer = new Thread(handle::close, "closer");
        closer.start();
        awaitState(closer, Thread.State.WAITING);
        assertTrue(released.isEmpty(), "a call holds the object: close waits");
        IllegalStateException late = assertThrows(IllegalStateException.class, handle::acquire);
        assertEquals("Thing is closed", late.getMessage(), "no call starts once close was asked");
        call.finish();
        closer.join();
        assertEquals(List.of(ADDRESS), released, "released once, after the call returned");
    }

    @Test
    void callsFromTwoThreadsAreSerialized() throws Exception {
        NativeHandle handle = handle();
        List<String> order = new CopyOnWriteArrayList<>();
        HeldCall first = new HeldCall(handle, () -> order.add("first ends"));
        Thread second = new Thread(() -> handle.accept(h -> order.add("second runs")), "second");
        second.start();
        awaitState(second, Thread.State.WAITING);
        first.finish();
        second.join();
        assertEquals(List.of("first ends", "second runs"), order);
    }

    @Test
    void anOwnerDroppedWithoutCloseIsReleasedByTheCleaner() {
        for (int i = 0; i < 100; i++) {
            createAndDropOwner(released::add);
        }
        for (int attempt = 0; attempt < 200 && released.size() < 100; attempt++) {
            System.gc();
        }
        assertEquals(100, released.size(), "every dropped owner's object was released, once");
    }

    @Test
    void theCleanerWaitsForACallInFlight() throws Exception {
        CountDownLatch freed = new CountDownLatch(1);
        Object[] owner = {new Object()};
        NativeHandle handle = new NativeHandle(owner[0], "Thing", ADDRESS, address -> {
            released.add(address);
            freed.countDown();
        });
        HeldCall call = new HeldCall(handle, () -> {});
        owner[0] = null;
        for (int attempt = 0; attempt < 200 && !handle.isClosed(); attempt++) {
            System.gc();
        }
        assertTrue(handle.isClosed(), "the Cleaner ran for the unreachable owner");
        assertTrue(released.isEmpty(), "but a call still holds the object");
        call.finish();
        assertTrue(freed.await(30, TimeUnit.SECONDS), "released once the call returned");
        assertEquals(List.of(ADDRESS), released);
    }

    /** A handle whose owner is unreachable as soon as this returns. */
    private static NativeHandle createAndDropOwner(NativeHandle.Release release) {
        return new NativeHandle(new Object(), "Thing", ADDRESS, release);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Polls the thread's state (for at most 30 s) until it blocks in the handle. */
    private static void awaitState(Thread thread, Thread.State state) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != state && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(state, thread.getState(), thread.getName() + " blocks in the handle");
    }
}
