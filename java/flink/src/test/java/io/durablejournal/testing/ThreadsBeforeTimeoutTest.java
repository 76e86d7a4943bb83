package io.durablejournal.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** What a job test's timeout prints before it interrupts: every live thread, by name, with its frames. */
class ThreadsBeforeTimeoutTest {
    @Test
    void theDumpNamesEveryLiveThreadWithItsStateAndFrames() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch parked = new CountDownLatch(1);
        Thread stuck = new Thread(() -> {
            parked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "a-stuck-task");
        stuck.start();
        parked.await();
        try {
            String dump = ThreadsBeforeTimeout.threads("someTest()", 175_000);
            assertTrue(dump.contains("[threads] someTest() still running after 175000 ms"), dump);
            assertTrue(dump.contains("\"a-stuck-task\" "), dump);
            assertTrue(dump.contains("ThreadsBeforeTimeoutTest.lambda$"), "the stuck thread's own frame: " + dump);
            assertTrue(dump.contains("\"" + Thread.currentThread().getName() + "\" RUNNABLE"), dump);
        } finally {
            release.countDown();
            stuck.join();
        }
    }
}
