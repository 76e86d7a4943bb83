package io.durablejournal.testing;

import java.lang.reflect.Method;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Prints every thread's stack to standard error a few seconds before a job test's {@link Timeout}
 * interrupts it, while whatever hangs still hangs (a task that never frees its slot, a job waiting
 * for one): after the interrupt the job has moved on and the evidence with it. A CI run that hits
 * a timeout shows the threads in its log; a test that finishes in time prints nothing.
 */
public final class ThreadsBeforeTimeout implements InvocationInterceptor {
    /** How long before the timeout the stacks are printed. */
    private static final long LEAD_MILLIS = 5_000;
    private static final int MAX_FRAMES = 40;

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext) throws Throwable {
        watch(invocation, extensionContext);
    }

    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation,
            ReflectiveInvocationContext<Method> invocationContext, ExtensionContext extensionContext) throws Throwable {
        watch(invocation, extensionContext);
    }

    private static void watch(Invocation<Void> invocation, ExtensionContext context) throws Throwable {
        Optional<Timeout> timeout = timeoutOf(context);
        if (!timeout.isPresent()) {
            invocation.proceed();
            return;
        }
        long millis = Math.max(0, timeout.get().unit().toMillis(timeout.get().value()) - LEAD_MILLIS);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "threads-before-timeout");
            thread.setDaemon(true);
            return thread;
        });
        String test = context.getDisplayName();
        ScheduledFuture<?> dump = timer.schedule(() -> System.err.print(threads(test, millis)), millis, TimeUnit.MILLISECONDS);
        try {
            invocation.proceed();
        } finally {
            dump.cancel(false);
            timer.shutdownNow();
        }
    }

    /** The test method's {@code @Timeout}, directly or through a composed annotation, else its class's. */
    private static Optional<Timeout> timeoutOf(ExtensionContext context) {
        Optional<Timeout> onMethod = context.getTestMethod().flatMap(m -> AnnotationSupport.findAnnotation(m, Timeout.class));
        return onMethod.isPresent()
                ? onMethod
                : context.getTestClass().flatMap(c -> AnnotationSupport.findAnnotation(c, Timeout.class));
    }

    /** Every live thread's name, state and top frames, sorted by name. */
    static String threads(String test, long afterMillis) {
        StringBuilder out = new StringBuilder("\n[threads] ").append(test).append(" still running after ")
                .append(afterMillis).append(" ms; its JVM's threads:\n");
        Map<Thread, StackTraceElement[]> stacks = Thread.getAllStackTraces();
        stacks.entrySet().stream()
                .sorted(Comparator.comparing((Map.Entry<Thread, StackTraceElement[]> e) -> e.getKey().getName()))
                .forEach(e -> {
                    Thread thread = e.getKey();
                    out.append("\"").append(thread.getName()).append("\" ").append(thread.getState()).append('\n');
                    StackTraceElement[] frames = e.getValue();
                    for (int i = 0; i < Math.min(frames.length, MAX_FRAMES); i++) {
                        out.append("    at ").append(frames[i]).append('\n');
                    }
                    if (frames.length > MAX_FRAMES) {
                        out.append("    ... ").append(frames.length - MAX_FRAMES).append(" more\n");
                    }
                });
        return out.toString();
    }
}
