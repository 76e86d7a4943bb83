package io.durablejournal.example;

import io.durablejournal.ActionState;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** The README's example: an action runs, "fails over", and its re-run replays the recorded call. */
public final class QuickStart {
    private QuickStart() {}

    static final AtomicInteger EMAILS_SENT = new AtomicInteger();

    /** A side effect we must not repeat on recovery. */
    static final class SendEmail implements DurableCallable<String> {
        private final String to;

        SendEmail(String to) {
            this.to = to;
        }

        @Override
        public String getId() {
            return "tool-call:send-email-" + to;
        }

        @Override
        public Class<String> getResultClass() {
            return String.class;
        }

        @Override
        public String call() {
            EMAILS_SENT.incrementAndGet();
            return "message-id-42";
        }
    }

    /** The action body: the same code runs the first time and on recovery. */
    static String action(RunnerContextImpl ctx) throws Exception {
        return ctx.durableExecute(new SendEmail("ada@example.com"));
    }

    public static void main(String[] args) throws Exception {
        AtomicReference<ActionState> lastPersisted = new AtomicReference<>(new ActionState());

        // First run: the call executes and its outcome is persisted before durableExecute returns.
        try (DurableExecutionContext journal = new DurableExecutionContext(new ActionState(), lastPersisted::set)) {
            System.out.println("first run:  " + action(new RunnerContextImpl(journal)));
        }

        // The job fails over; the action re-runs from the top over the persisted ActionState.
        try (DurableExecutionContext journal = new DurableExecutionContext(lastPersisted.get(), lastPersisted::set)) {
            System.out.println("recovery:   " + action(new RunnerContextImpl(journal)));
        }

        System.out.println("emails sent: " + EMAILS_SENT.get());
        if (EMAILS_SENT.get() != 1) {
            throw new IllegalStateException("the side effect ran " + EMAILS_SENT.get() + " times");
        }
    }
}
